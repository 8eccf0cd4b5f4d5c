import { describe, expect, it } from 'vitest';
import {
  ApiError, OutcomeUnknownError, causeCode, errorFromResponse, networkError, parseServerMessage, rateLimitTooLongError,
} from '../../src/remote/errors.js';
import { OPERATIONS } from '../../src/remote/operations.js';
import { Redactor } from '../../src/remote/redact.js';
import { testKey } from '../helpers/keys.js';

const KEY = testKey('errors');
const redactor = new Redactor([KEY]);
const ctx = { host: 'api.example.com:443', deploymentId: 'dep-1', redactor, idempotent: true };

describe('parseServerMessage', () => {
  it.each([
    [{ error: 'bad path', code: 'bad_request' }, 'bad path', 'bad_request'],
    [{ message: 'nope' }, 'nope', undefined],
    [{ errors: [{ detail: 'first', code: 'x1' }, { detail: 'second' }] }, 'first', 'x1'],
    [{ error: { message: 'nested', code: 'n' } }, 'nested', 'n'],
    ['  plain text  ', 'plain text', undefined],
    [null, '', undefined],
    [{ unrelated: 1 }, '', undefined],
  ])('%j', (body, message, code) => {
    expect(parseServerMessage(body)).toEqual({ message, code });
  });

  it("turns a proxy's HTML error page into one short line", () => {
    const page =
      '<html>\r\n<head><title>502 Bad Gateway</title><style>body { color: red }</style></head>\r\n' +
      '<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx &amp; friends</center>\r\n</body>\r\n</html>\r\n';
    expect(parseServerMessage(page).message).toBe('502 Bad Gateway 502 Bad Gateway nginx & friends');
  });

  it('collapses whitespace and caps long server text at about 200 characters', () => {
    const { message } = parseServerMessage({ error: `line one\n\n\tline two ${'x'.repeat(1000)}` });
    expect(message.startsWith('line one line two x')).toBe(true);
    expect(message.length).toBeLessThanOrEqual(200);
    expect(message.endsWith('…')).toBe(true);
    expect(message).not.toMatch(/\s{2}|\n/);
  });
});

describe('errorFromResponse', () => {
  it('401 says the key was rejected and where keys are made, without the key', () => {
    const e = errorFromResponse(OPERATIONS.filesIndex, 401, { error: `invalid token ${KEY}` }, ctx);
    expect(e.status).toBe(401);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain('developer settings');
    expect(e.message).toContain('HOSTSYNC_API_KEY');
    expect(e.message).not.toContain(KEY);
    expect(e.serverMessage).toBe('invalid token [REDACTED]');
  });

  it('403 names the missing scope and the deployment', () => {
    const e = errorFromResponse(OPERATIONS.deploymentsApply, 403, { message: 'forbidden' }, ctx);
    expect(e.message).toContain('"deployments:write"');
    expect(e.message).toContain('dep-1');
    expect(e.message).toContain('developer settings');
    expect(e.operation).toBe('deployments.apply');
  });

  it('5xx is retryable for idempotent calls and outcome-unknown otherwise', () => {
    const a = errorFromResponse(OPERATIONS.filesIndex, 503, { error: 'busy' }, ctx);
    expect(a).not.toBeInstanceOf(OutcomeUnknownError);
    expect(a.retryable).toBe(true);
    const b = errorFromResponse(OPERATIONS.filesMove, 500, { error: 'boom' }, { ...ctx, idempotent: false });
    expect(b).toBeInstanceOf(OutcomeUnknownError);
    expect(b.retryable).toBe(false);
    expect(b.serverMessage).toBe('boom');
  });

  it('other 4xx carry the server message and code, not retryable', () => {
    const e = errorFromResponse(OPERATIONS.filesRename, 400, { error: 'destination already exists', code: 'destination_exists' }, ctx);
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('destination_exists');
    expect(e.message).toContain('destination already exists');
    expect(e.retryable).toBe(false);
  });
});

describe('429 messages', () => {
  it('a single 429 does not claim there were waits', () => {
    const e = errorFromResponse(OPERATIONS.filesIndex, 429, { error: 'slow down' }, ctx);
    expect(e.message).not.toMatch(/wait/);
    expect(e.retryable).toBe(true);
  });

  it('a Retry-After far beyond the window names the wait and the local time to come back', () => {
    const now = new Date(2025, 0, 1, 13, 58, 30).getTime();
    const e = rateLimitTooLongError('files.index', 3_600_000, now);
    expect(e.message).toBe('files.index: rate limited by the service for 3600 s (another tool using this key?); try again after 14:59.');
    expect(e).toMatchObject({ status: 429, retryable: false });
  });
});

describe('networkError', () => {
  const sys = (code: string) => Object.assign(new Error(`connect ${code} 10.0.0.1:443`), { code });
  const undiciSocket = () => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET', cause: sys('ECONNRESET') });

  it('connection refused names host and cause, and is safe to retry even for a move', () => {
    const e = networkError(OPERATIONS.filesMove, sys('ECONNREFUSED'), { ...ctx, idempotent: false });
    expect(e).not.toBeInstanceOf(OutcomeUnknownError);
    expect(e.status).toBe(0);
    expect(e.retryable).toBe(true);
    expect(e.message).toContain('api.example.com:443');
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.message).toContain('connection refused');
  });

  it('a drop after sending is outcome-unknown for a move and retryable for an index', () => {
    const m = networkError(OPERATIONS.filesMove, undiciSocket(), { ...ctx, idempotent: false });
    expect(m).toBeInstanceOf(OutcomeUnknownError);
    expect(m.code).toBe('ECONNRESET');
    const i = networkError(OPERATIONS.filesIndex, undiciSocket(), ctx);
    expect(i.retryable).toBe(true);
  });

  it('a refused connection to the API asks whether the address is right, named by where it came from; a node URL does not', () => {
    expect(networkError(OPERATIONS.filesIndex, sys('ECONNREFUSED'), ctx).message).toContain('is the service address right?');
    const fromFlag = { ...ctx, baseUrlFrom: '--base-url (https://h.example)' };
    expect(networkError(OPERATIONS.filesIndex, sys('ECONNREFUSED'), fromFlag).message).toContain('is --base-url (https://h.example) right?');
    expect(networkError(OPERATIONS.filesUpload, sys('ECONNREFUSED'), fromFlag).message).not.toContain('right?');
  });

  it('unreachable-host codes mean "never sent" only when connect(2) raised them', () => {
    for (const code of ['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']) {
      const connecting = Object.assign(sys(code), { syscall: 'connect' });
      const c = networkError(OPERATIONS.filesMove, connecting, { ...ctx, idempotent: false });
      expect(c, code).not.toBeInstanceOf(OutcomeUnknownError);
      expect(c.retryable, code).toBe(true);
      // The same code from a kept-alive socket after the request was written: it may have arrived.
      const writing = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET', cause: Object.assign(sys(code), { syscall: 'write' }) });
      expect(networkError(OPERATIONS.filesMove, writing, { ...ctx, idempotent: false }), code).toBeInstanceOf(OutcomeUnknownError);
      const w = networkError(OPERATIONS.filesIndex, writing, ctx);
      expect(w.retryable, code).toBe(true);
      expect(w.message, code).not.toContain('could not reach');
    }
  });

  it('an argument undici refuses is not retried', () => {
    const e = networkError(OPERATIONS.filesIndex, Object.assign(new Error('invalid header'), { code: 'UND_ERR_INVALID_ARG' }), ctx);
    expect(e.retryable).toBe(false);
  });

  it('an unknown host is not worth retrying', () => {
    expect(networkError(OPERATIONS.filesIndex, sys('ENOTFOUND'), ctx).retryable).toBe(false);
  });

  it('a local read failure is named as such, not as the network', () => {
    const e = networkError(OPERATIONS.filesUpload, sys('ENOENT'), { ...ctx, idempotent: false });
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e.message).toContain('reading a local file failed');
  });

  it('finds the innermost system code and redacts unknown messages', () => {
    expect(causeCode(undiciSocket())).toBe('ECONNRESET');
    expect(causeCode(Object.assign(new Error('x'), { name: 'NotReadableError' }))).toBe('ELOCALCHANGED');
    const e = networkError(OPERATIONS.filesIndex, new Error(`weird ${KEY}`), ctx);
    expect(e.message).not.toContain(KEY);
  });
});
