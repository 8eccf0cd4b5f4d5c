/**
 * The deployment's start settings and size in `status` and `push` (app/deploy-settings.ts):
 * `S` for a setting a push sets, like a file's `M`; `S!` for one changed on the deployment
 * since the last push (a conflict).
 */
import { pc } from './colors.js';
import type { SettingsResult } from '../app/deploy-settings.js';
import { quoteName } from './terminal-text.js';

const shown = (v: string | number): string => (typeof v === 'number' ? String(v) : v === '' ? '(none)' : quoteName(v));

export function settingsLines(s: SettingsResult | null | undefined, mode: 'status' | 'dry-run' | 'push'): string[] {
  if (!s) return [];
  const out: string[] = [];
  if (s.changes.length > 0) {
    const head = mode === 'push' ? (s.applied ? 'Settings set on the deployment (they apply at the restart below):' : 'Settings:') : 'Settings to set (hostsync.json; push sets them, then restarts):';
    out.push(head);
    out.push(...s.changes.map((c) => `  ${pc.yellow('S')}  ${c.key}: ${shown(c.from)} -> ${shown(c.to)}`));
  }
  if (s.conflicts.length > 0) {
    out.push(pc.red(`Settings changed on the deployment since the last push (${s.conflicts.length}; left alone; --force sets hostsync.json's):`));
    out.push(...s.conflicts.map((c) => `  ${pc.red('S!')} ${c.key}: deployment ${shown(c.remote)} (was ${shown(c.base)}), hostsync.json ${shown(c.local)}`));
  }
  if (s.refused) out.push(pc.red(s.refused));
  return out;
}
