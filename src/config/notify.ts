/**
 * hostsync.json "notify" (issue 47, item 6): where a crash, a conflict, a refusal or a
 * stopped watch is told, beyond the terminal nobody is looking at. The webhook URL is a
 * secret of sorts (whoever has it can post to the channel): it is never shown whole
 * (redactWebhook) and, as the API key, it only goes over https unless to this machine.
 */
import { usageError } from '../errors.js';
import { isLoopback } from './trust.js';

export interface NotifySettings {
  /** A Discord or Slack incoming webhook (both take `{"content": "..."}`); null: none. */
  webhook: string | null;
  /** A desktop notification through notify-send, osascript or PowerShell, whichever exists. */
  desktop: boolean;
}

export function validateNotify(value: unknown, file: string): NotifySettings {
  const where = `${file}: "notify"`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw usageError(`${where} must be an object such as {"webhook": "https://discord.com/api/webhooks/...", "desktop": true}`);
  }
  const v = value as Record<string, unknown>;
  const unknown = Object.keys(v).find((k) => k !== 'webhook' && k !== 'desktop');
  if (unknown !== undefined) throw usageError(`${where} has an unknown key "${unknown}": use webhook and desktop`);
  if (v.desktop !== undefined && typeof v.desktop !== 'boolean') throw usageError(`${where}.desktop must be true or false`);
  let webhook: string | null = null;
  if (v.webhook !== undefined && v.webhook !== null) {
    let url: URL | null = null;
    try {
      url = typeof v.webhook === 'string' ? new URL(v.webhook) : null;
    } catch {
      url = null;
    }
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw usageError(`${where}.webhook must be an https URL (a Discord or Slack incoming webhook)`);
    if (url.protocol === 'http:' && !isLoopback(url)) throw usageError(`${where}.webhook uses plain http:// to ${url.host}: use https://`);
    webhook = url.toString();
  }
  return { webhook, desktop: v.desktop === true };
}

/** A webhook URL as it may be shown: its origin and a hint of the path, never the token in it. */
export function redactWebhook(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '(webhook)';
  }
}
