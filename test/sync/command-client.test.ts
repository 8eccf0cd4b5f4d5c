/**
 * Which deadline a command's client gets (sync/command-client.ts): the command's own,
 * replaced by HOSTSYNC_DEADLINE (0: none); none at all for a command that runs until
 * stopped (watch, logs --follow), whatever HOSTSYNC_DEADLINE says. Before, a watch started
 * with HOSTSYNC_DEADLINE set got that deadline, and after it every call of every cycle
 * failed with the deadline's error, retried for ever.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clientFor, connect, resolveConfig } from '../../src/app/options.js';
import { COMMAND_DEADLINE_MS, READ_COMMAND_DEADLINE_MS } from '../../src/app/tunables.js';
import { commandDeadlineMs } from '../../src/sync/command-client.js';
import { testKey } from '../helpers/keys.js';
import { tempDir } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Connection options on a fresh folder; nothing is sent (no call is made). */
async function options(env: Record<string, string> = {}) {
  const work = await tempDir('hostsync-command-client-');
  cleanups.push(work.cleanup);
  return { dir: work.dir, env: { HOSTSYNC_API_KEY: testKey('deadline'), HOSTSYNC_BASE_URL: 'http://127.0.0.1:9', HOSTSYNC_DEPLOYMENT: 'dep-1', ...env } };
}

describe('a command\'s deadline', () => {
  it('is the command\'s own, which HOSTSYNC_DEADLINE replaces, 0 meaning none', () => {
    expect(commandDeadlineMs({ deadlineSeconds: undefined }, READ_COMMAND_DEADLINE_MS)).toBe(READ_COMMAND_DEADLINE_MS);
    expect(commandDeadlineMs({ deadlineSeconds: 4 }, READ_COMMAND_DEADLINE_MS)).toBe(4000);
    expect(commandDeadlineMs({ deadlineSeconds: 0 }, COMMAND_DEADLINE_MS)).toBeUndefined();
    expect(commandDeadlineMs({ deadlineSeconds: 4 }, null)).toBeUndefined();
  });

  it('a client made for a command without a session (open, logs, exec, create, link) gets HOSTSYNC_DEADLINE', async () => {
    const opts = await options({ HOSTSYNC_DEADLINE: '4' });
    const client = clientFor(opts, await resolveConfig(opts), READ_COMMAND_DEADLINE_MS);
    cleanups.push(() => client.close());
    expect(client.deadline()?.ms).toBe(4000);
  });

  it('the library option deadlineSeconds reaches it too', async () => {
    const opts = { ...(await options()), deadlineSeconds: 7 };
    const client = clientFor(opts, await resolveConfig(opts), COMMAND_DEADLINE_MS);
    cleanups.push(() => client.close());
    expect(client.deadline()?.ms).toBe(7000);
  });

  it('watch (and logs --follow) run until stopped: no deadline, though HOSTSYNC_DEADLINE is set', async () => {
    const opts = await options({ HOSTSYNC_DEADLINE: '4' });
    const session = await connect(opts, undefined, null);
    cleanups.push(() => session.close());
    expect(session.client.deadline()).toBeNull();
    const follow = clientFor(opts, await resolveConfig(opts), null);
    cleanups.push(() => follow.close());
    expect(follow.deadline()).toBeNull();
  });
});
