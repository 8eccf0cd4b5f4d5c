/**
 * `logs -f` after a call gave up (issue 28, words): the retry line reads as one sentence,
 * "... Gave up after 5 attempts; retrying in 2 s", not "attempts.; retrying".
 */
import { describe, expect, it } from 'vitest';
import { followLogs, type FollowEvent } from '../../src/watch/log-follower.js';
import { renderFollowEvent } from '../../src/cli/commands/logs.js';
import { ApiError } from '../../src/remote/errors.js';
import type { HostingClient } from '../../src/remote/client.js';

describe('logs --follow, waiting for the service', () => {
  it('says what failed and when it retries without a stray full stop', async () => {
    const stop = new AbortController();
    const failed = new ApiError('deployments.logs: the request to 127.0.0.1:9 failed: connection refused (ECONNREFUSED).', {
      operation: 'deployments.logs', status: 0, serverMessage: 'connection refused (ECONNREFUSED)', retryable: true, code: 'ECONNREFUSED',
    }).withNote('Gave up after 5 attempts.');
    const client = { deployments: { logs: () => Promise.reject(failed) } } as unknown as HostingClient;
    const events: FollowEvent[] = [];
    await followLogs(client, (e) => {
      events.push(e);
      stop.abort();
    }, { initialLines: 0, signal: stop.signal });
    const waiting = events.find((e) => e.type === 'waiting');
    expect(waiting && renderFollowEvent(waiting)?.text).toBe(
      '-- deployments.logs: the request to 127.0.0.1:9 failed: connection refused (ECONNREFUSED). Gave up after 5 attempts; retrying in 2 s',
    );
  });
});
