/**
 * One POST of a notification to a Discord or Slack incoming webhook (hostsync.json
 * "notify.webhook"; sync/notify.ts decides what and when). The URL carries the hook's
 * secret: it is never logged or put in an error whole (config/notify.ts redactWebhook).
 * A failure is only reported as false: a notification that did not go never fails a sync.
 */
import { undiciAgent } from './undici-agent.js';

/** `{"content": ...}` is what both Discord and Slack take; no mention in it pings anyone. */
export function webhookBody(content: string): string {
  return JSON.stringify({ content, allowed_mentions: { parse: [] } });
}

export async function postWebhook(url: string, content: string, timeoutMs: number): Promise<boolean> {
  const { Agent, request } = undiciAgent();
  const agent = new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const u = new URL(url);
    const res = await request(agent, {
      origin: u.origin,
      path: `${u.pathname}${u.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'hostsync' },
      body: webhookBody(content),
      signal,
    });
    await res.body.dump();
    return res.statusCode >= 200 && res.statusCode < 300;
  } catch {
    return false;
  } finally {
    await agent.close().catch(() => undefined);
  }
}
