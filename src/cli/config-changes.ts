import type { ConfigEditResult } from '../config/edit.js';
import { CONFIG_FILE } from '../config/config.js';

/** One line saying what a command did to hostsync.json: "updated hostsync.json: deployment dep_a -> dep_b". */
export function configEditLine(r: ConfigEditResult): string {
  const set = r.changes.map((c) => (c.from === null ? `${c.key} set to ${c.to}` : `${c.key} ${c.from} -> ${c.to}`));
  if (r.created) return `wrote ${CONFIG_FILE}${set.length ? ` (${set.join(', ')})` : ''}`;
  const what = [...set, ...r.added.map((key) => `${key} added`)].join(', ');
  return what ? `updated ${CONFIG_FILE}: ${what}` : `${CONFIG_FILE} already says so; unchanged`;
}
