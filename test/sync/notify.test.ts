/**
 * Issue 47, item 6: what a notification carries and how often. One per kind a minute (the
 * next one counts what was held back), never the API key or an env file's value, no
 * control characters, within Discord's 2000 characters, and the body both Discord and
 * Slack take.
 */
import { describe, expect, it } from 'vitest';
import { Notifier, notify, setNotifier, type NotifyEvent } from '../../src/sync/notify.js';
import { webhookBody } from '../../src/remote/webhook.js';
import { redactWebhook, validateNotify } from '../../src/config/notify.js';

const KEY = 'hs_live_0123456789abcdef';
const TOKEN = 'MTIz.NDU2.discord-token-value';

function harness(settings = { webhook: 'https://discord.com/api/webhooks/1/secret-part', desktop: true }) {
  let now = 0;
  const posts: Array<{ url: string; content: string }> = [];
  const desktop: Array<{ title: string; body: string }> = [];
  const n = new Notifier({
    settings,
    subject: 'target production, deployment dep_1 (api.example)',
    secrets: [KEY, TOKEN, '1', 'true'],
    now: () => now,
    send: { webhook: async (url, content) => (posts.push({ url, content }), true), desktop: (title, body) => desktop.push({ title, body }) },
  });
  return { n, posts, desktop, advance: (ms: number) => (now += ms) };
}

const crash = (error: string, lines: string[] = []): NotifyEvent => ({ kind: 'crash', state: 'offline', error, lines });

describe('notifications', () => {
  it('one per kind a minute; the next one says how many were held back; other kinds go at once', async () => {
    const h = harness();
    h.n.notify(crash('TypeError: a'));
    h.n.notify(crash('TypeError: b'));
    h.n.notify(crash('TypeError: c'));
    h.n.notify({ kind: 'conflict', origin: 'watch', paths: ['bot.js'] });
    await h.n.flush();
    expect(h.posts.map((p) => p.content.split('\n')[0])).toEqual([
      'hostsync, target production, deployment dep_1 (api.example): the app went offline after it came up: TypeError: a',
      'hostsync, target production, deployment dep_1 (api.example): 1 conflict left alone by the watch (first: bot.js): resolve them, or push --force',
    ]);
    h.advance(60_000);
    h.n.notify(crash('TypeError: d'));
    await h.n.flush();
    expect(h.posts[2]!.content.split('\n')[0]).toContain('TypeError: d (+2 more of this kind in the last minute)');
    expect(h.desktop).toHaveLength(3);
  });

  it('never carries the API key or a value of an env file; short values ("1", "true") are left alone', async () => {
    const h = harness();
    h.n.notify({ kind: 'unhealthy', origin: 'push', state: 'offline', reason: `bad key ${KEY}`, lines: [`logging in with ${TOKEN}`, 'retries: 1, verbose: true'] });
    await h.n.flush();
    const text = h.posts[0]!.content + h.desktop[0]!.body + h.desktop[0]!.title;
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(TOKEN);
    expect(h.posts[0]!.content).toContain('logging in with [redacted]');
    expect(h.posts[0]!.content).toContain('retries: 1, verbose: true');
  });

  it('keeps the last log lines in a code block a line cannot break out of, without control characters, under 2000 characters', async () => {
    const h = harness();
    const lines = ['TypeError: the first error', ...Array.from({ length: 40 }, (_, i) => `line ${i} ${'x'.repeat(300)}`)];
    h.n.notify(crash('Error: \u001b[31mred\u001b[0m ``` @everyone', [...lines, 'the last line']));
    await h.n.flush();
    const c = h.posts[0]!.content;
    expect(c.length).toBeLessThanOrEqual(1900);
    expect(c).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(c.split('```')).toHaveLength(3);
    expect(c).toContain('the last line');
    // The first error line stays; the oldest after it go.
    expect(c).toContain('TypeError: the first error');
    expect(c).not.toContain('line 0 ');
    expect(c).not.toContain('line 33 ');
    // No mention in it pings anyone on Discord.
    expect(JSON.parse(webhookBody(c))).toEqual({ content: c, allowed_mentions: { parse: [] } });
  });

  it('notify() goes to the installed notifier only; without one it does nothing', async () => {
    const h = harness();
    notify({ kind: 'restart-limit', restartsToday: 9, limit: 10 });
    setNotifier(h.n);
    notify({ kind: 'restart-limit', restartsToday: 9, limit: 10 });
    setNotifier(null);
    await h.n.flush();
    expect(h.posts.map((p) => p.content)).toEqual(['hostsync, target production, deployment dep_1 (api.example): 9 restarts today, of the 10 a day the service allows']);
  });

  it('the webhook must be https (http only to this machine), and is never shown whole', () => {
    expect(() => validateNotify({ webhook: 'http://hooks.example/x' }, 'hostsync.json')).toThrow(/plain http/);
    expect(() => validateNotify({ webhook: 'not a url' }, 'hostsync.json')).toThrow(/must be an https URL/);
    expect(() => validateNotify({ desktop: 'yes' }, 'hostsync.json')).toThrow(/desktop must be true or false/);
    expect(() => validateNotify({ slack: 'x' }, 'hostsync.json')).toThrow(/unknown key "slack"/);
    expect(validateNotify({ webhook: 'http://127.0.0.1:9/hook', desktop: true }, 'hostsync.json')).toEqual({ webhook: 'http://127.0.0.1:9/hook', desktop: true });
    expect(redactWebhook('https://discord.com/api/webhooks/123/abcdef-secret')).toBe('https://discord.com/…');
  });
});
