import type { ConfigEditResult } from '../config/edit.js';
import { CONFIG_FILE } from '../config/config.js';

/** One line saying what a command did to hostsync.json: "updated hostsync.json: deployment dep_a -> dep_b". */
export function configEditLine(r: ConfigEditResult): string {
  const what = r.changes.map((c) => (c.from === null ? `${c.key} set to ${c.to}` : `${c.key} ${c.from} -> ${c.to}`)).join(', ');
  if (r.created) return `wrote ${CONFIG_FILE}${what ? ` (${what})` : ''}`;
  return r.changes.length > 0 ? `updated ${CONFIG_FILE}: ${what}` : `${CONFIG_FILE} already says so; unchanged`;
}
