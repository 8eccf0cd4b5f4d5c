/**
 * The client checks every answer's shape (issue 12, item 11): a malformed answer is one
 * ApiError "unexpected answer from the service to <op>: <what>", never a TypeError
 * further in and never data taken for complete. Includes the fuzz test of the boundary.
 */
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import * as S from '../../src/api/schemas.js';
import { checkAnswer } from '../../src/remote/answer.js';
import { ApiError, UNEXPECTED_ANSWER } from '../../src/remote/errors.js';
import { describeError } from '../../src/sync/describe-error.js';
import { EXIT } from '../../src/errors.js';
import { clientHarness } from './client-harness.js';
import { mulberry32 } from '../../src/emulator/prng.js';

const { setup } = clientHarness();

const entry = { path: 'src/a.js', type: 'file', sizeBytes: 12, modifiedAt: '2026-11-23T10:00:00Z', mode: '0644', hash: '0123456789abcdef' };
const index = { unchanged: false, digest: 'd1', truncated: false, entries: [entry, { ...entry, path: 'big.bin', hash: null }] };

function failure(body: unknown, schema: S.AnswerSchema<unknown> = S.IndexResult): string {
  try {
    checkAnswer('files.index', schema, body, { status: 200 });
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(UNEXPECTED_ANSWER);
    return (e as Error).message;
  }
  throw new Error('the answer passed');
}

describe('paths in answers (issue 28, item 1): checked once, at the schema, for every answer that carries one', () => {
  const unsafe = (p: string, why: string) => `unexpected answer from the service to files.index: an unsafe path ${JSON.stringify(p)} (${why}): the answer was refused and nothing in it was used`;
  it('refuses an escaping path wherever it comes', () => {
    expect(failure({ ...index, entries: [{ ...entry, path: '../victim.txt' }] })).toBe(unsafe('../victim.txt', 'a ".." segment'));
    expect(failure({ ...index, entries: [{ ...entry, path: 'sub/../../x' }] })).toBe(unsafe('sub/../../x', 'a ".." segment'));
    expect(failure({ ...index, entries: [{ ...entry, path: '//etc/passwd' }] })).toBe(unsafe('//etc/passwd', 'an absolute path'));
    expect(failure({ ...index, entries: [{ ...entry, path: 'a\u0000b' }] })).toBe(unsafe('a\u0000b', 'a NUL character'));
    expect(failure({ ...index, entries: [{ ...entry, path: 'a\\..\\..\\x' }] })).toBe(unsafe('a\\..\\..\\x', 'a ".." segment'));
    const cases: [S.AnswerSchema<unknown>, unknown][] = [
      [S.ReadManyResult, { truncated: false, files: [{ path: '/../x', content: 'x', bytes: 1, skipped: null }] }],
      [S.ListResult, { path: '/', entries: [{ name: '..', type: 'directory', sizeBytes: 0 }] }],
      [S.ListResult, { path: '/', entries: [{ name: 'a/../../b', type: 'file', sizeBytes: 0 }] }],
      [S.MoveResult, { ok: true, moved: [{ from: 'a', to: '../a' }], failed: [] }],
      [S.WriteManyResult, { written: [{ path: '../w' }], failed: [] }],
      [S.HistoryResult, { path: '../h', versions: [] }],
      [S.CompressResult, { ok: true, archive: '../backup.tar.gz' }],
      [S.RestoreResult, { ok: true, path: 'x/../../y' }],
    ];
    for (const [schema, body] of cases) expect(failure(body, schema), JSON.stringify(body)).toMatch(/an unsafe path .*: the answer was refused/);
  });

  it('refuses an index whose paths come without the volume root\'s "/" and one with it (issue 44, item 10)', () => {
    const why = 'an absolute path among volume-relative ones';
    expect(failure({ ...index, entries: [{ ...entry, path: 'app.js' }, { ...entry, path: '/tmp/x/abs.txt' }] })).toBe(unsafe('/tmp/x/abs.txt', why));
    expect(failure({ ...index, entries: [{ ...entry, path: '/tmp/x/abs.txt' }, { ...entry, path: 'app.js' }] })).toBe(unsafe('/tmp/x/abs.txt', why));
  });

  it('takes the volume-rooted and odd-but-legal paths the service does send', () => {
    const ok = (body: unknown, schema: S.AnswerSchema<unknown>) => expect(() => checkAnswer('x', schema, body, { status: 200 })).not.toThrow();
    ok({ ...index, entries: [{ ...entry, path: 'dir/' }, { ...entry, path: '...' }, { ...entry, path: 'a\\b.txt' }] }, S.IndexResult);
    ok({ ...index, entries: [{ ...entry, path: '/src/a.js' }, { ...entry, path: '/dir/' }, { ...entry, path: '/' }] }, S.IndexResult);
    ok({ path: '/', entries: [{ name: '.env', type: 'file', sizeBytes: 1 }] }, S.ListResult);
    ok({ ok: true, moved: [{ from: '/a', to: '/' }], failed: [] }, S.MoveResult);
  });
});

describe('answers that do not fit the contract', () => {
  it('say what is wrong, where, in one line', () => {
    const p = 'unexpected answer from the service to files.index: ';
    expect(failure({ ...index, entries: [{ ...entry, sizeBytes: '12' }] })).toBe(`${p}entries[0].sizeBytes: expected number, got "12"`);
    expect(failure({ ...index, entries: [entry, { ...entry, path: undefined }] })).toBe(`${p}entries[1].path: missing`);
    expect(failure({ ...index, entries: [{ ...entry, sizeBytes: -1 }] })).toBe(`${p}entries[0].sizeBytes: expected >=0, got -1`);
    expect(failure({ ...index, entries: [{ ...entry, sizeBytes: 1.5 }] })).toBe(`${p}entries[0].sizeBytes: expected a whole number, got 1.5`);
    expect(failure({ ...index, entries: null })).toBe(`${p}entries: expected a list, got null`);
    expect(failure(null)).toBe(`${p}expected an object, got null`);
    expect(failure(`<html><body>${'Bad gateway '.repeat(20)}</body></html>`)).toMatch(/^unexpected answer from the service to files\.index: expected an object, got "Bad gateway Bad gateway .{10,20}…"$/);
  });

  it('an index with no entries is an error unless it says the tree is unchanged (then it reads as none)', () => {
    expect(failure({ unchanged: false, digest: 'd', truncated: false })).toMatch(/: entries: missing/);
    expect(checkAnswer('files.index', S.IndexResult, { unchanged: true, digest: 'd', truncated: false }, { status: 200 }).entries).toEqual([]);
  });

  it('keeps fields the schema does not know (the service may add some) and a valid answer unchanged', () => {
    const out = checkAnswer('files.index', S.IndexResult, { ...index, extra: { a: 1 } }, { status: 200 });
    expect(out).toEqual({ ...index, extra: { a: 1 } });
  });

  it('is a failure (exit 1), not retried, through the client: the malformed answer is asked once', async () => {
    const { service, client } = await setup(() => ({ json: { ...index, entries: [{ ...entry, hash: 7 }] } }));
    const err = await client.files.index({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).message).toBe('unexpected answer from the service to files.index: entries[0].hash: expected string, got 7');
    expect(describeError(err).exitCode).toBe(EXIT.failed);
    expect(service.seen).toHaveLength(1);
  });
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A random JSON value (what a broken proxy or a changed service could send), depth-bounded. */
function randomValue(r: () => number, depth = 0): Json | undefined {
  const pick = Math.floor(r() * (depth > 2 ? 7 : 10));
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return [0, -1, 1.5, 2 ** 53, 1e308, -0][Math.floor(r() * 6)]!;
    case 3: return ['', 'x', '12', '<html>oops</html>', 'ünïcode', 'a'.repeat(300)][Math.floor(r() * 6)]!;
    case 4: return Math.floor(r() * 1000);
    case 5: return 'running';
    case 6: return undefined;
    case 7: return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1) ?? null);
    default: {
      const o: Record<string, Json> = {};
      for (const k of ['path', 'entries', 'unchanged', 'ok', 'sizeBytes', 'hash', '__proto__', 'constructor'].filter(() => r() < 0.4)) {
        const val = randomValue(r, depth + 1);
        if (val !== undefined) o[k] = val;
      }
      return o;
    }
  }
}

/** A valid answer with one random spot replaced, deleted or wrapped: near misses find more edges than noise. */
function mutate(valid: Json, r: () => number): Json | undefined {
  const copy = JSON.parse(JSON.stringify(valid)) as Json;
  let node: Json = copy;
  for (let depth = 0; depth < 4; depth++) {
    if (node === null || typeof node !== 'object') break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[Math.floor(r() * keys.length)]!;
    const child = (node as Record<string, Json>)[key]!;
    if (r() < 0.4 || child === null || typeof child !== 'object') {
      const val = randomValue(r);
      if (val === undefined) delete (node as Record<string, Json>)[key];
      else (node as Record<string, Json>)[key] = val;
      return copy;
    }
    node = child;
  }
  return r() < 0.5 ? [copy] : randomValue(r);
}

const VALID: Array<[string, S.AnswerSchema<unknown>, Json]> = [
  ['files.index', S.IndexResult, index],
  ['files.readMany', S.ReadManyResult, { files: [{ path: '/a', content: 'x', bytes: 1, skipped: null }, { path: '/b', content: null, bytes: 9, skipped: 'binary' }], truncated: false, note: '' }],
  ['files.writeMany', S.WriteManyResult, { ok: true, written: [{ path: 'a', bytes: 1, lines: 1 }], failed: [], note: '', hint: '' }],
  ['files.history', S.HistoryResult, { path: 'a', versions: [{ id: 'v1', savedAt: '2026-11-23T10:00:00Z', bytes: 3 }] }],
  ['files.move', S.MoveResult, { ok: true, moved: [{ from: 'a', to: 'b/a' }], failed: [] }],
  ['deployments.get', S.Deployment, { id: 'dep-1', name: 'app', state: 'running', runtime: 'nodejs', domains: { url: null } }],
  ['deployments.apply', S.ApplyResult, { state: 'running', logs: ['up'], http: { url: 'u', status: 200, ok: true }, restarted: true, skippedRestart: '' }],
];

describe('fuzz: random shapes at the client boundary', () => {
  it('every answer is either a typed result that fits its schema or the one "unexpected answer" error', () => {
    const r = mulberry32(12);
    let passed = 0;
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      const [op, schema, valid] = VALID[i % VALID.length]!;
      const body = i % 5 === 0 ? randomValue(r) : mutate(valid, r);
      let out: unknown;
      try {
        out = checkAnswer(op, schema, body, { status: 200 });
      } catch (e) {
        // Anything but the one error (a TypeError, a RangeError) fails the case, with its input.
        if (!(e instanceof ApiError) || e.code !== UNEXPECTED_ANSWER) throw new Error(`case ${i} (${op}): ${String(e)} for ${JSON.stringify(body)}`);
        expect(e.message.startsWith(`unexpected answer from the service to ${op}: `)).toBe(true);
        expect(e.message).not.toMatch(/\n/);
        expect(e.message.length).toBeLessThan(300);
        refused++;
        continue;
      }
      expect(v.is(schema, out), `case ${i} (${op}) passed but does not fit: ${JSON.stringify(body)}`).toBe(true);
      passed++;
    }
    // Both outcomes happened many times: the generator is not trivially one-sided.
    expect(passed).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(1000);
  });

  it("files.index's plain check (no copy) accepts only what the schema accepts, with the schema's value, and every valid answer", () => {
    const r = mulberry32(33);
    let plain = 0;
    let refused = 0;
    for (let i = 0; i < 6000; i++) {
      const body = i % 7 === 0 ? randomValue(r) : mutate(index, r);
      const fast = S.plainIndexResult(structuredClone(body));
      const slow = v.safeParse(S.IndexResult, structuredClone(body));
      if (fast !== null) {
        expect(slow.success, `case ${i}: the plain check took what the schema refuses: ${JSON.stringify(body)}`).toBe(true);
        expect(fast).toEqual(slow.output);
        plain++;
      } else if (slow.success) {
        // Sound, not complete: only shapes outside the documented one may take the slow way.
        expect(JSON.stringify(body), `case ${i}`).not.toMatch(/^\{"unchanged":(true|false),"digest":"[^"]*","truncated":(true|false),"entries":\[\]\}$/);
      } else refused++;
    }
    expect(plain).toBeGreaterThan(300);
    expect(refused).toBeGreaterThan(1000);
    for (const valid of [index, { ...index, extra: { a: 1 }, entries: [{ ...entry, more: true }, { ...entry, hash: undefined }] }, { unchanged: true, digest: 'd', truncated: false }]) {
      expect(S.plainIndexResult(structuredClone(valid))).toEqual(v.parse(S.IndexResult, structuredClone(valid)));
    }
    // An unsafe path is refused by both, and the message still names it (the schema's pass).
    expect(S.plainIndexResult({ ...index, entries: [{ ...entry, path: 'a/../../x' }] })).toBeNull();
    expect(failure({ ...index, entries: [entry, { ...entry, sizeBytes: -1 }] })).toMatch(/entries\[1\]\.sizeBytes/);
  });

  it('through the real client and transport (HTTP, JSON or not): the same two outcomes, nothing else', async () => {
    const r = mulberry32(1212);
    const bodies: Array<{ text: string }> = [];
    for (let i = 0; i < 300; i++) {
      const body = i % 3 === 0 ? randomValue(r) : mutate(index, r);
      // Some answers are not JSON at all: a truncated body, a proxy's page.
      const text = body === undefined ? '' : i % 7 === 0 ? JSON.stringify(body).slice(0, -1) : JSON.stringify(body);
      bodies.push({ text });
    }
    const { client } = await setup((req) => ({ text: bodies[req.n]!.text, headers: { 'content-type': 'application/json' } }), {
      rateLimit: { requests: 1_000_000, windowMs: 60_000 }, ledger: false,
    });
    for (let i = 0; i < bodies.length; i++) {
      try {
        const out = await client.files.index({});
        expect(Array.isArray(out.entries)).toBe(true);
        for (const e of out.entries) expect(typeof e.path === 'string' && Number.isInteger(e.sizeBytes) && e.sizeBytes >= 0).toBe(true);
      } catch (e) {
        if (!(e instanceof ApiError) || e.code !== UNEXPECTED_ANSWER) throw new Error(`case ${i}: ${String(e)} for ${bodies[i]!.text}`);
      }
    }
  });
});
