/**
 * One scripted service and the clients made against it, per test, torn down after each:
 * shared by the client test files so each reads as its cases only.
 */
import { afterEach } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostingClient, type ClientOptions } from '../../src/remote/client.js';
import { startFakeService, type FakeService, type Reply, type Seen } from './fake-service.js';
import { testKey } from '../helpers/keys.js';

export const KEY = testKey('client');

/** Registers the afterEach teardown; `finish` says how clients end (destroy cancels what is left). */
export function clientHarness(finish: 'close' | 'destroy' = 'close') {
  let service: FakeService | undefined;
  const clients: HostingClient[] = [];
  const dirs: string[] = [];

  afterEach(async () => {
    for (const c of clients.splice(0)) await (finish === 'destroy' ? c.destroy() : c.close());
    await service?.close();
    service = undefined;
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  async function setup(handler: (r: Seen) => Reply | Promise<Reply>, opts: Partial<ClientOptions> = {}) {
    service = await startFakeService(handler);
    const client = new HostingClient({
      baseUrl: service.baseUrl, apiKey: KEY, deploymentId: 'dep-1', retry: { baseDelayMs: 5, maxDelayMs: 20 }, ...opts,
    });
    clients.push(client);
    return { service, client };
  }

  async function tmp(): Promise<string> {
    const d = await mkdtemp(join(tmpdir(), 'hostsync-remote-'));
    dirs.push(d);
    return d;
  }

  /** A client made by hand in a test, torn down with the rest. */
  const track = (client: HostingClient): HostingClient => {
    clients.push(client);
    return client;
  };

  return { setup, tmp, track };
}
