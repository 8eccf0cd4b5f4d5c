/**
 * Shutting a client down: close() is graceful, destroy() cancels whatever is running,
 * queued or waiting to be retried, so Ctrl-C in watch mode answers at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { HostingClient, type ClientOptions } from '../../src/remote/client.js';
import { ApiError, OutcomeUnknownError } from '../../src/remote/errors.js';
import { startFakeService, type FakeService, type Reply, type Seen, WELL_FORMED } from './fake-service.js';
import { testKey } from '../helpers/keys.js';

const KEY = testKey('cancel');
let service: FakeService | undefined;
const clients: HostingClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) await c.destroy();
  await service?.close();
  service = undefined;
});

async function setup(handler: (r: Seen) => Reply | Promise<Reply>, opts: Partial<ClientOptions> = {}) {
  service = await startFakeService(handler);
  const client = new HostingClient({ baseUrl: service.baseUrl, apiKey: KEY, deploymentId: 'dep-1', ...opts });
  clients.push(client);
  return { service, client };
}

const settle = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

/** A server that holds deployments.apply open (as waitSeconds 20 would) and fails files.index with 503. */
function holdingServer() {
  let applyArrived!: () => void;
  const arrived = new Promise<void>((r) => (applyArrived = r));
  const handler = (r: Seen): Reply | Promise<Reply> => {
    if (r.path.endsWith('/apply')) {
      applyArrived();
      return new Promise<Reply>(() => {});
    }
    if (r.path.endsWith('/files/index')) return { status: 503, json: { error: 'busy' } };
    return { json: WELL_FORMED };
  };
  return { handler, arrived };
}

describe('destroy', () => {
  it('cancels a running apply, a call backing off after a 503 and a queued call, each with a clear error', async () => {
    const { handler, arrived } = holdingServer();
    // One request at a time: index runs first (503, then backs off for up to a minute),
    // apply takes the slot and hangs, get waits in the queue.
    const { service, client } = await setup(handler, { maxInFlight: 1, retry: { baseDelayMs: 60_000, maxDelayMs: 60_000 } });
    const index = settle(client.files.index({}));
    const apply = settle(client.deployments.apply({ waitSeconds: 20 }));
    const get = settle(client.deployments.get());
    await arrived;

    await client.destroy();
    const [eIndex, eApply, eGet] = (await Promise.all([index, apply, get])) as ApiError[];

    // apply was on the wire: it may have taken effect, so it is outcome-unknown, but says why.
    expect(eApply).toBeInstanceOf(OutcomeUnknownError);
    expect(eApply).toMatchObject({ operation: 'deployments.apply', code: 'ECANCELLED' });
    expect(eApply!.message).toContain('cancelled: hostsync is shutting down');
    // index (between attempts) and get (never started) were not in flight: plain cancellations.
    for (const [e, op] of [[eIndex, 'files.index'], [eGet, 'deployments.get']] as const) {
      expect(e).toBeInstanceOf(ApiError);
      expect(e).not.toBeInstanceOf(OutcomeUnknownError);
      expect(e).toMatchObject({ operation: op, code: 'ECANCELLED', retryable: false });
      expect(e!.message).toContain('cancelled: hostsync is shutting down');
    }
    expect(service.seen.map((s) => s.path.split('/').pop())).toEqual(['index', 'apply']);

    // Later calls are refused the same way, and nothing reaches the server.
    await expect(client.account.get()).rejects.toMatchObject({ code: 'ECANCELLED' });
    expect(service.seen).toHaveLength(2);
  });

  it('ends a graceful close() that is waiting on a long request', async () => {
    const { handler, arrived } = holdingServer();
    const { client } = await setup(handler);
    const apply = settle(client.deployments.apply({ waitSeconds: 20 }));
    await arrived;
    const closing = client.close();
    await client.close({ force: true });
    await closing;
    expect(await apply).toMatchObject({ code: 'ECANCELLED' });
  });

  it('cancels a call held by a 429 pause', async () => {
    const { service, client } = await setup(() => ({ status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '50' } }));
    const get = settle(client.deployments.get());
    while (client.stats().rateLimited === 0) await new Promise((r) => setImmediate(r));
    await client.destroy();
    expect(await get).toMatchObject({ operation: 'deployments.get', code: 'ECANCELLED' });
    expect(service.seen).toHaveLength(1);
  });
});
