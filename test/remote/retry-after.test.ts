/**
 * What the client does with a 429's Retry-After: never a zero wait (no hammering), an
 * HTTP date read against the server's own clock, an absurd wait refused at once, and
 * a 429 from a signed node URL waited out by that transfer alone.
 */
import { describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../src/remote/errors.js';
import { RETRY_AFTER_FALLBACK_MS } from '../../src/remote/tunables.js';
import { WELL_FORMED, type Reply } from './fake-service.js';
import { clientHarness } from './client-harness.js';

const { setup, tmp } = clientHarness('destroy');

const limited = (headers: Record<string, string>): Reply => ({ status: 429, json: { error: 'slow down' }, headers });

describe('Retry-After that would mean "no wait"', () => {
  it('Retry-After: 0 still pauses for the fallback wait instead of hammering', async () => {
    const { service, client } = await setup((r) => (r.n === 0 ? limited({ 'retry-after': '0' }) : { json: WELL_FORMED }));
    await client.deployments.get();
    expect(service.seen).toHaveLength(2);
    expect(client.stats()).toMatchObject({ rateLimited: 1, retries: 1 });
    expect(client.stats().waitedMs).toBeGreaterThanOrEqual(RETRY_AFTER_FALLBACK_MS);
  });

  it("an HTTP date is read against the response's Date, so a client clock ahead of the server still waits", async () => {
    // The server's clock is an hour behind ours: its "2 s from now" is an hour in our past.
    const serverNow = new Date(Date.now() - 3_600_000);
    const { client } = await setup((r) =>
      r.n === 0
        ? limited({ date: serverNow.toUTCString(), 'retry-after': new Date(serverNow.getTime() + 2000).toUTCString() })
        : { json: WELL_FORMED },
    );
    await client.deployments.get();
    expect(client.stats().waitedMs).toBe(2000);
  });
});

describe('Retry-After far beyond the window', () => {
  it('fails at once with one line naming the wait and the clock time to try again', async () => {
    const { service, client } = await setup(() => limited({ 'retry-after': '7200' }));
    const e = (await client.deployments.get().catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 429, retryable: false });
    expect(e.message).toMatch(/^deployments\.get: rate limited by the service for 7200 s \(another tool using this key\?\); try again after \d\d:\d\d\.?$/);
    expect(service.seen).toHaveLength(1);
    expect(client.stats().waitedMs).toBe(0);
  });

  it('is measured against the configured window', async () => {
    const { service, client } = await setup(() => limited({ 'retry-after': '3' }), { rateLimit: { requests: 5, windowMs: 1000 } });
    await expect(client.deployments.get()).rejects.toThrow(/rate limited by the service for 3 s/);
    expect(service.seen).toHaveLength(1);
  });
});

describe('429 from a signed node URL', () => {
  it('the upload waits Retry-After itself and does not pause the API queue', async () => {
    const d = await tmp();
    await writeFile(join(d, 'a.txt'), 'hello');
    let uploads = 0;
    const { service, client } = await setup((r) => {
      if (r.path.endsWith('/upload-url')) return { json: { url: '/__node/upload/tok', field: 'files', expiresAt: '' } };
      if (r.path.startsWith('/__node/upload/')) return uploads++ === 0 ? limited({ 'retry-after': '1' }) : { json: WELL_FORMED };
      return { json: WELL_FORMED };
    });
    await client.files.upload('', [{ name: 'a.txt', localPath: join(d, 'a.txt'), size: 5 }]);
    const node = service.seen.filter((s) => s.path.startsWith('/__node/'));
    expect(node).toHaveLength(2);
    // The repeat came no sooner than Retry-After after the 429 was written (less timer rounding).
    expect(node[1]!.at - service.repliedAt.get(node[0]!.n)!).toBeGreaterThanOrEqual(950);
    // The API queue was never paused for it.
    expect(client.stats()).toMatchObject({ rateLimited: 1, waitedMs: 0 });
  });
});
