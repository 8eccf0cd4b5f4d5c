/**
 * Crashes that find you (issue 47, item 6): hostsync.json "notify" sends what a terminal
 * nobody watches would otherwise keep to itself, to a webhook (Discord, Slack) and/or the
 * desktop. The kinds are NotifyEvent's; each is sent at most once a NOTIFY_MIN_INTERVAL_MS
 * (the next one says how many were held back). A message never holds the API key or any
 * value of the project's env files (`secrets`: cut out of every line before it is sent),
 * and the webhook URL is never shown whole.
 *
 * `notify(event)` is the one entry point for the rest of hostsync (the watch's restart
 * ledger included): it goes to the notifier the running command installed with
 * setNotifier, or nowhere.
 */
import type { NotifySettings } from '../config/notify.js';
import { showDesktopNotification } from '../local/desktop-notify.js';
import { postWebhook } from '../remote/webhook.js';
import { isErrorLine } from './console-lines.js';
import { NOTIFY_LOG_LINES, NOTIFY_MAX_CHARS, NOTIFY_MIN_INTERVAL_MS, NOTIFY_REDACT_MIN_CHARS, NOTIFY_WEBHOOK_TIMEOUT_MS } from './tunables.js';

/** Where it happened: `push` or a `watch` cycle. */
export type NotifyOrigin = 'push' | 'watch';

export type NotifyEvent =
  /** The app went down after it had come up (watch's app monitor). */
  | { kind: 'crash'; state: string; error: string | null; lines: string[] }
  /** The app did not come up, or stayed unhealthy, after a push or a watch cycle (a failed install too). */
  | { kind: 'unhealthy'; origin: NotifyOrigin; state: string; reason: string; lines: string[] }
  /** Changes left alone because both sides changed them. */
  | { kind: 'conflict'; origin: NotifyOrigin; paths: string[] }
  /** A guard refused: the mass-delete guard, a copy behind the last push, held deletions, ... */
  | { kind: 'refusal'; origin: NotifyOrigin; message: string }
  /** The watch stopped: by a problem (`reason`), or asked to (`reason` null). */
  | { kind: 'watch-stop'; reason: string | null }
  /** Restarts today are close to the service's daily limit (the watch's restart ledger). */
  | { kind: 'restart-limit'; restartsToday: number; limit: number };

export type NotifyKind = NotifyEvent['kind'];

export interface NotifierOptions {
  settings: NotifySettings;
  /** "target production, deployment dep_1 (host)": who the message is about. */
  subject: string;
  /** Strings never to send: the API key and every value of the project's env files. */
  secrets: readonly string[];
  /** Tests: the clock, and where messages go instead of the network and the desktop. */
  now?: () => number;
  send?: { webhook?: (url: string, content: string) => Promise<boolean>; desktop?: (title: string, body: string) => void };
}

/** One line of text as a message may carry it: no control characters, no code fence breaking out. */
const clean = (s: string): string => s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/```/g, "'''");

/** The one-line headline and the lines under it, before secrets are cut out. */
export function describe(e: NotifyEvent): { title: string; lines: string[] } {
  switch (e.kind) {
    case 'crash':
      return { title: `the app went ${e.state} after it came up${e.error ? `: ${e.error}` : ''}`, lines: e.lines };
    case 'unhealthy':
      return { title: `the app is ${e.state} after the ${e.origin === 'push' ? 'push' : 'watch cycle'}: ${e.reason}`, lines: e.lines };
    case 'conflict':
      return { title: `${e.paths.length} conflict${e.paths.length === 1 ? '' : 's'} left alone by the ${e.origin === 'push' ? 'push' : 'watch'} (first: ${e.paths[0] ?? '?'}): resolve them, or push --force`, lines: [] };
    case 'refusal':
      return { title: `refused: ${e.message}`, lines: [] };
    case 'watch-stop':
      return { title: e.reason ? `watch stopped: ${e.reason}` : 'watch stopped', lines: [] };
    case 'restart-limit':
      return { title: `${e.restartsToday} restarts today, of the ${e.limit} a day the service allows`, lines: [] };
  }
}

export class Notifier {
  private readonly last = new Map<NotifyKind, number>();
  private readonly held = new Map<NotifyKind, number>();
  private readonly pending = new Set<Promise<unknown>>();
  private readonly secrets: string[];
  private readonly now: () => number;

  constructor(private readonly opts: NotifierOptions) {
    // Longest first: a secret containing another is cut whole.
    this.secrets = [...new Set(opts.secrets.filter((s) => s.length >= NOTIFY_REDACT_MIN_CHARS))].sort((a, b) => b.length - a.length);
    this.now = opts.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.opts.settings.webhook !== null || this.opts.settings.desktop;
  }

  private redact(s: string): string {
    let out = s;
    for (const secret of this.secrets) out = out.split(secret).join('[redacted]');
    return out;
  }

  /** The text sent for `e` (headline, then the last log lines in a code block), or null when rate-limited. */
  message(e: NotifyEvent): { title: string; body: string } | null {
    const at = this.now();
    const prev = this.last.get(e.kind);
    if (prev !== undefined && at - prev < NOTIFY_MIN_INTERVAL_MS) {
      this.held.set(e.kind, (this.held.get(e.kind) ?? 0) + 1);
      return null;
    }
    this.last.set(e.kind, at);
    const heldBack = this.held.get(e.kind) ?? 0;
    this.held.delete(e.kind);
    const d = describe(e);
    const head = (this.redact(clean(`hostsync, ${this.opts.subject}: ${d.title}`)) + (heldBack > 0 ? ` (+${heldBack} more of this kind in the last minute)` : '')).slice(0, NOTIFY_MAX_CHARS / 2);
    // The last lines, and the first error line when they lost it (a stack trace's frames push it out).
    const tail = d.lines.slice(-NOTIFY_LOG_LINES);
    const firstError = d.lines.find(isErrorLine);
    const pinned = firstError !== undefined && !tail.includes(firstError);
    const kept = pinned ? [firstError, '...', ...d.lines.slice(-(NOTIFY_LOG_LINES - 2))] : tail;
    const lines = kept.map((l) => this.redact(clean(l)).slice(0, NOTIFY_MAX_CHARS / 4));
    const fence = (ls: string[]): string => (ls.length > 0 ? `${head}\n\`\`\`\n${ls.join('\n')}\n\`\`\`` : head);
    // Until it fits, the oldest lines go (after the pinned error line).
    while (lines.length > (pinned ? 1 : 0) && fence(lines).length > NOTIFY_MAX_CHARS) lines.splice(pinned ? 1 : 0, 1);
    if (fence(lines).length > NOTIFY_MAX_CHARS) lines.length = 0;
    const body = fence(lines);
    return { title: `hostsync: ${this.redact(clean(d.title)).slice(0, 120)}`, body };
  }

  /** Sends `e` (unless rate-limited) without waiting; flush() waits for what is under way. */
  notify(e: NotifyEvent): void {
    if (!this.enabled) return;
    const m = this.message(e);
    if (m === null) return;
    const { webhook, desktop } = this.opts.settings;
    if (desktop) (this.opts.send?.desktop ?? showDesktopNotification)(m.title, m.body);
    if (webhook !== null) {
      const post = (this.opts.send?.webhook ?? ((u, c) => postWebhook(u, c, NOTIFY_WEBHOOK_TIMEOUT_MS)))(webhook, m.body).catch(() => false);
      this.pending.add(post);
      void post.finally(() => this.pending.delete(post));
    }
  }

  /** Waits for the webhook posts under way (each bounded by its timeout): before a command exits. */
  async flush(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

let current: Notifier | null = null;

/** The notifier `notify()` uses from now on (the running command's), or none. */
export function setNotifier(n: Notifier | null): void {
  current = n;
}

/** Tells `e` through the running command's notifier; nothing when none is set or "notify" is absent. */
export function notify(e: NotifyEvent): void {
  current?.notify(e);
}

/** Waits for what notify() has under way. */
export async function flushNotifications(): Promise<void> {
  await current?.flush();
}
