import { describe, expect, it } from 'vitest';
import { EXIT, HostsyncError, refusal, usageError } from '../../src/errors.js';
import { ApiError, OutcomeUnknownError } from '../../src/remote/errors.js';
import { classifyFailure } from '../../src/watch/failure.js';
import { testKey } from '../helpers/keys.js';

const api = (status: number, retryable = false, message = `files.index failed (${status})`): ApiError =>
  new ApiError(message, { operation: 'files.index', status, serverMessage: '', retryable });

describe('classifyFailure', () => {
  const table: [string, unknown, string][] = [
    ['no HTTP answer (network down)', api(0, true), 'transient'],
    ['5xx', api(503, true), 'transient'],
    ['429 after the client gave up waiting', api(429, true), 'transient'],
    ['unknown outcome of a move', new OutcomeUnknownError('files.move: no answer', { operation: 'files.move', status: 0, serverMessage: '' }), 'transient'],
    ['rejected key', api(401), 'fatal'],
    ['missing scope', api(403), 'fatal'],
    ['bad configuration', usageError('no API key'), 'fatal'],
    ['mass-delete guard', refusal('refusing to delete 30 of 40 tracked files'), 'refused'],
    ['an unexpected 4xx', api(400), 'error'],
    ['a local I/O error', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }), 'error'],
    ['anything else', 'a string', 'error'],
  ];
  for (const [name, err, kind] of table) it(name, () => expect(classifyFailure(err).kind).toBe(kind));

  it('keeps the exit code of a fatal error and scrubs the key from the message', () => {
    const key = testKey('scrubbed');
    const f = classifyFailure(new HostsyncError(`bad key ${key} given`, EXIT.usage), key);
    expect(f).toMatchObject({ kind: 'fatal', exitCode: EXIT.usage });
    expect(f.message).not.toContain(key);
  });
});
