import { describe, expect, it } from 'vitest';
import { answerTimeoutMs, bindApi, type CallInit } from '../../src/remote/client-api.js';
import type { Operation } from '../../src/remote/operations.js';

/** The calls bindApi describes, without sending anything. */
function recorder() {
  const calls: { op: string; init: CallInit }[] = [];
  const call = <T>(o: Operation, init: CallInit<T> = {}): Promise<T> => {
    calls.push({ op: o.name, init: init as CallInit });
    return Promise.resolve({} as T);
  };
  const none = () => Promise.reject(new Error('not a transfer test'));
  return { calls, api: bindApi(call, { download: none, upload: none, uploadArchive: none }) };
}

describe('client-api: each endpoint as one described call', () => {
  it('an append is not repeated on an unknown outcome; an overwrite is', async () => {
    const { calls, api } = recorder();
    await api.files.write('a.txt', 'x', 'append');
    await api.files.write('a.txt', 'x');
    await api.files.writeMany([{ path: 'b', content: 'y', mode: 'append' }]);
    expect(calls.map((c) => [c.op, c.init.idempotent])).toEqual([['files.write', false], ['files.write', true], ['files.writeMany', false]]);
  });

  it('a call that waits server-side gets that wait on top of its timeout (apply defaults to 20 s)', async () => {
    const { calls, api } = recorder();
    await api.deployments.apply();
    await api.deployments.logs(100, 5);
    await api.files.decompress('a.tar.gz', { files: 0 });
    expect(calls.map((c) => c.init.extraTimeoutMs)).toEqual([20_000, 5_000, 0]);
  });

  it('env keys fill the path, never the body', async () => {
    const { calls, api } = recorder();
    await api.env.delete('TOKEN');
    expect(calls[0]).toMatchObject({ op: 'env.delete', init: { key: 'TOKEN' } });
    expect(calls[0]!.init.json).toBeUndefined();
  });

  it('the answer timeout grows with the operation, its wait and its upload', () => {
    expect(answerTimeoutMs('files.index', 30_000)).toBe(30_000);
    expect(answerTimeoutMs('deployments.apply', 30_000, { waitMs: 20_000 })).toBe(50_000);
  });
});
