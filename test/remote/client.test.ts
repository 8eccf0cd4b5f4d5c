import { describe, expect, it } from 'vitest';
import { readFile, readdir, writeFile, chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import busboy from 'busboy';
import * as tar from 'tar';
import { pino } from 'pino';
import { HostingClient, answerTimeoutMs } from '../../src/remote/client.js';
import { ApiError, OutcomeUnknownError } from '../../src/remote/errors.js';
import { ServerWindow, startFakeService, type Reply, type Seen, WELL_FORMED } from './fake-service.js';
import { clientHarness, KEY } from './client-harness.js';

const API = '/api/v1/deployments/dep-1';
const { setup, tmp, track } = clientHarness('close');

function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

describe('base URL rules', () => {
  it('refuses plain http to a non-loopback host, accepts https and loopback http', () => {
    const mk = (baseUrl: string) => new HostingClient({ baseUrl, apiKey: KEY, deploymentId: 'd' });
    expect(() => mk('http://api.example.com')).toThrow(/clear text.*https/);
    expect(() => mk('ftp://api.example.com')).toThrow(/https/);
    expect(() => mk('not a url')).toThrow(/not a URL/);
    for (const ok of ['https://api.example.com', 'http://127.0.0.1:9', 'http://localhost:9', 'http://[::1]:9']) {
      const c = mk(ok);
      void c.close();
    }
  });

  it('requires a key, and a deployment for the calls on one (account-level calls such as deployments.list need none)', async () => {
    expect(() => new HostingClient({ baseUrl: 'https://x.dev', apiKey: '', deploymentId: 'd' })).toThrow(/API key/);
    const accountOnly = new HostingClient({ baseUrl: 'https://127.0.0.1:1', apiKey: KEY, deploymentId: '' });
    await expect(accountOnly.files.index({})).rejects.toThrow(/files\.index needs a deployment id/);
    await accountOnly.destroy();
  });

  it('refuses a key with characters no header can carry, in one line that never shows the key', () => {
    for (const bad of [`${KEY}\n`, `Bearer ${KEY}`, `${KEY}\u00e9`, `HOSTSYNC_API_KEY=${KEY}\r`, `${KEY}\u0000`]) {
      let thrown: unknown;
      try {
        new HostingClient({ baseUrl: 'https://x.dev', apiKey: bad, deploymentId: 'd' });
      } catch (e) {
        thrown = e;
      }
      expect(thrown, JSON.stringify(bad)).toBeInstanceOf(Error);
      const m = (thrown as Error).message;
      expect(m).toBe('HOSTSYNC_API_KEY has characters a key cannot contain: paste the key alone');
      expect(m).not.toContain(KEY);
    }
  });
});

describe('a client on another client\'s connections (connectionsOf)', () => {
  it('counts its own requests, leaves the connections open when it closes, and takes only the same service and key', async () => {
    const { service, client: lender } = await setup(() => ({ json: WELL_FORMED }));
    const borrower = new HostingClient({ baseUrl: service.baseUrl, apiKey: KEY, deploymentId: 'dep-1', connectionsOf: lender });
    await borrower.deployments.get();
    await borrower.files.index({});
    expect(borrower.stats().total).toBe(2);
    expect(lender.stats().total).toBe(0);
    await borrower.close();
    // The lender's connections are still open: its next call goes through.
    await lender.deployments.get();
    await borrower.destroy();
    await lender.deployments.get();
    expect(lender.stats().total).toBe(2);
    expect(() => new HostingClient({ baseUrl: service.baseUrl, apiKey: `${KEY}x`, deploymentId: 'dep-1', connectionsOf: lender })).toThrow(/same service and key/);
    expect(() => new HostingClient({ baseUrl: 'http://127.0.0.1:1', apiKey: KEY, deploymentId: 'dep-1', connectionsOf: lender })).toThrow(/same service and key/);
  });
});

describe('endpoints', () => {
  it('map to the documented method, path, query and body, with the Bearer key', async () => {
    const { service, client } = await setup((r) => ({ json: { ...WELL_FORMED, echo: r.path }, headers: { 'x-ratelimit-remaining': '100' } }));
    await client.files.index({ ignore: ['node_modules/'], digest: 'abc' });
    await client.files.list('src');
    await client.files.read('a.txt', { offset: 10, limit: 5 });
    await client.files.readMany(['/a', '/b'], 1000);
    await client.files.history('a.txt');
    await client.files.restore('a.txt', 'v1');
    await client.files.write('a.txt', 'part2', 'append');
    await client.files.writeMany([{ path: 'x', content: 'y' }]);
    await client.files.delete(['x'], '/');
    await client.files.move(['a', 'b'], 'dir');
    await client.files.rename('a', 'b');
    await client.files.chmod('run.sh', '0755');
    await client.files.decompress('a.tar.gz', { removeArchive: true });
    await client.files.uploadUrl('assets');
    await client.files.downloadUrl('a.txt');
    await client.deployments.get();
    await client.deployments.apply({ restart: false });
    await client.deployments.diagnose(3);
    await client.deployments.logs(50, 2);
    await client.deployments.power('restart', 5);
    await client.account.get();
    const got = service.seen.map((s) => [s.method, s.path, s.query.toString(), s.body]);
    expect(got).toEqual([
      ['POST', `${API}/files/index`, '', { ignore: ['node_modules/'], digest: 'abc' }],
      ['GET', `${API}/files`, 'path=src', undefined],
      ['GET', `${API}/files/content`, 'path=a.txt&offset=10&limit=5', undefined],
      ['POST', `${API}/files/read-many`, '', { paths: ['/a', '/b'], maxBytes: 1000 }],
      ['GET', `${API}/files/history`, 'path=a.txt', undefined],
      ['POST', `${API}/files/restore`, '', { path: 'a.txt', versionId: 'v1' }],
      ['POST', `${API}/files/content`, '', { path: 'a.txt', content: 'part2', mode: 'append' }],
      ['POST', `${API}/files/writeMany`, '', { files: [{ path: 'x', content: 'y' }] }],
      ['POST', `${API}/files/delete`, '', { files: ['x'], root: '/' }],
      ['POST', `${API}/files/move`, '', { files: ['a', 'b'], to: 'dir' }],
      ['POST', `${API}/files/rename`, '', { from: 'a', to: 'b' }],
      ['POST', `${API}/files/chmod`, '', { file: 'run.sh', mode: '0755' }],
      ['POST', `${API}/files/decompress`, '', { file: 'a.tar.gz', removeArchive: true }],
      ['POST', `${API}/files/upload-url`, '', { path: 'assets' }],
      ['GET', `${API}/files/download-url`, 'path=a.txt', undefined],
      ['GET', API, '', undefined],
      ['POST', `${API}/apply`, '', { restart: false }],
      ['GET', `${API}/diagnose`, 'waitSeconds=3', undefined],
      ['GET', `${API}/logs`, 'size=50&waitSeconds=2', undefined],
      ['POST', `${API}/power`, '', { action: 'restart', waitSeconds: 5 }],
      ['GET', '/api/v1/account', '', undefined],
    ]);
    expect(new Set(service.seen.map((s) => s.auth))).toEqual(new Set([`Bearer ${KEY}`]));
    const st = client.stats();
    expect(st.total).toBe(21);
    expect(st.byOperation['files.index']).toBe(1);
    expect(st.byOperation['deployments.power']).toBe(1);
    expect(Object.values(st.byOperation).reduce((a, b) => a + b, 0)).toBe(21);
    client.resetStats();
    expect(client.stats().total).toBe(0);
  });

  it('keeps one kept-alive connection per in-flight slot instead of one per request', async () => {
    const { service, client } = await setup(() => ({ json: WELL_FORMED }), { maxInFlight: 2 });
    for (let i = 0; i < 20; i++) await client.deployments.get();
    const ports = new Set(service.seen.map((s) => `${s.headers.host}`));
    expect(ports.size).toBe(1);
    // Sequential calls reuse the same socket: the server saw no more than one connection's worth of "connection: close".
    expect(service.seen.every((s) => s.headers.connection !== 'close')).toBe(true);
  });

  it('writeMany hands back per-item failures instead of throwing', async () => {
    const body = { ok: false, written: [{ path: 'a', bytes: 1, lines: 1 }], failed: [{ path: 'b', error: 'disk full' }], note: '', hint: '' };
    const { client } = await setup((r) => (r.n === 0 ? { json: body } : { status: 422, json: body }));
    expect((await client.files.writeMany([{ path: 'a', content: '1' }, { path: 'b', content: '2' }])).failed).toEqual(body.failed);
    expect((await client.files.writeMany([{ path: 'a', content: '1' }])).written).toHaveLength(1);
  });
});

describe('errors', () => {
  it('401 and 403 say what is missing and where keys are made, never the key', async () => {
    const { client } = await setup((r) =>
      r.path.endsWith('/files/index')
        ? { status: 401, json: { message: `token ${KEY} is revoked` } }
        : { status: 403, json: { errors: [{ detail: 'missing scope' }] } },
    );
    const e401 = await client.files.index({}).catch((e: unknown) => e);
    expect(e401).toBeInstanceOf(ApiError);
    expect(e401).toMatchObject({ status: 401, operation: 'files.index', retryable: false });
    expect((e401 as ApiError).message).toMatch(/developer settings/);
    const e403 = (await client.deployments.apply().catch((e: unknown) => e)) as ApiError;
    expect(e403.status).toBe(403);
    expect(e403.message).toContain('deployments:write');
    expect(e403.serverMessage).toBe('missing scope');
    for (const e of [e401, e403] as ApiError[]) {
      expect(JSON.stringify({ m: e.message, s: e.serverMessage, st: e.stack })).not.toContain(KEY);
    }
  });

  it('a refused connection names host:port and ECONNREFUSED', async () => {
    const s = await startFakeService(() => ({}));
    const { port, baseUrl } = s;
    await s.close();
    const client = new HostingClient({ baseUrl, baseUrlFrom: `HOSTSYNC_BASE_URL (${baseUrl})`, apiKey: KEY, deploymentId: 'dep-1', retry: { maxAttempts: 2, baseDelayMs: 1 } });
    track(client);
    const e = (await client.files.move(['a'], 'b').catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e).not.toBeInstanceOf(OutcomeUnknownError); // never sent, so not unknown
    expect(e.status).toBe(0);
    expect(e.message).toContain(`127.0.0.1:${port}`);
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.message).toContain(`is HOSTSYNC_BASE_URL (${baseUrl}) right?`);
    expect(client.stats().retries).toBe(1);
  });

  it('a 2xx that is not a JSON object is an error, not a silent success', async () => {
    const { client } = await setup(() => ({ json: ['not', 'an', 'object'] }));
    await expect(client.deployments.get()).rejects.toThrow(/^unexpected answer from the service to deployments.get: /);
  });

  it('a 2xx web page is not the API: one line naming it, not a silent success', async () => {
    const { client } = await setup(() => ({ text: '<html>proxy</html>' }));
    await expect(client.deployments.get()).rejects.toThrow(/^deployments.get: the address answered a web page, not the API \(HTTP 200\)/);
  });
});

describe('retries and unknown outcomes', () => {
  it('a 5xx that outlasts the retries says how many attempts were made', async () => {
    const { service, client } = await setup(() => ({ status: 503, json: { error: 'maintenance' } }), {
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const e = (await client.files.index({}).catch((x: unknown) => x)) as ApiError;
    expect(e).toMatchObject({ status: 503, operation: 'files.index' });
    expect(e.message).toMatch(/^files\.index: the server failed \(503\)\. Server said: "maintenance"\. Gave up after 3 attempts\.$/);
    expect(service.seen).toHaveLength(3);
  });

  it('a 429 with no retries left does not claim it waited', async () => {
    const { client } = await setup(() => ({ status: 429, json: { error: 'slow' }, headers: { 'retry-after': '1' } }), {
      retry: { max429Retries: 0 },
    });
    const e = (await client.deployments.get().catch((x: unknown) => x)) as ApiError;
    expect(e.status).toBe(429);
    expect(e.message).not.toMatch(/wait/);
  });

  it('idempotent calls survive 5xx and dropped connections', async () => {
    const { service, client } = await setup((r) => (r.n === 0 ? { status: 500, json: { error: 'x' } } : r.n === 1 ? 'drop' : { json: { ...WELL_FORMED, n: r.n } }));
    await expect(client.files.index({})).resolves.toMatchObject({ n: 2 });
    expect(service.seen).toHaveLength(3);
    expect(client.stats()).toMatchObject({ total: 3, retries: 2 });
  });

  it('a move whose connection dropped is outcome-unknown and never repeated', async () => {
    const { service, client } = await setup((r) => (r.path.endsWith('/move') ? 'drop' : { json: WELL_FORMED }));
    const e = await client.files.move(['a'], 'b').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as ApiError).operation).toBe('files.move');
    expect((e as ApiError).message).toMatch(/re-read the remote/);
    expect(service.seen.filter((s) => s.path.endsWith('/move'))).toHaveLength(1);
    expect(client.stats().outcomeUnknown).toBe(1);
  });

  it('5xx on rename, decompress, apply is outcome-unknown; append is not repeated, overwrite is', async () => {
    const { service, client } = await setup((r) =>
      r.path.endsWith('/content') && (r.body as { mode: string }).mode === 'overwrite' && r.n > 4
        ? { json: WELL_FORMED }
        : r.path.endsWith('/content') ? 'drop' : { status: 502, json: { error: 'bad gateway' } },
    );
    for (const call of [() => client.files.rename('a', 'b'), () => client.files.decompress('a.zip'), () => client.deployments.apply()]) {
      await expect(call()).rejects.toBeInstanceOf(OutcomeUnknownError);
    }
    await expect(client.files.write('f', 'x', 'append')).rejects.toBeInstanceOf(OutcomeUnknownError);
    await expect(client.files.write('f', 'x')).resolves.toMatchObject({ ok: true });
    const seenOps = service.seen.map((s) => s.path.split('/').pop());
    expect(seenOps).toEqual(['rename', 'decompress', 'apply', 'content', 'content', 'content']);
  });
});

describe('timeouts', () => {
  it('a move that never answers is outcome-unknown; an index that timed out once is repeated', async () => {
    let indexes = 0;
    const { service, client } = await setup(
      (r) => (r.path.endsWith('/move') || (r.path.endsWith('/index') && indexes++ === 0) ? new Promise<Reply>(() => {}) : { json: WELL_FORMED }),
      { timeoutMs: 300 },
    );
    const e = (await client.files.move(['a'], 'b').catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(e.code).toBe('UND_ERR_HEADERS_TIMEOUT');
    await expect(client.files.index({})).resolves.toMatchObject({ ok: true });
    expect(service.seen.map((s) => s.path.split('/').pop())).toEqual(['move', 'index', 'index']);
  });
});

describe('a decompress of many files', () => {
  it('waits longer for the answer the more files the archive holds', async () => {
    // Base 30 ms x the factor 10: 300 ms (undici's timers fire up to a second late); the node takes 2 s to unpack.
    const { client } = await setup(async () => {
      await new Promise((r) => setTimeout(r, 2000));
      return { json: WELL_FORMED };
    }, { timeoutMs: 30 });
    await expect(client.files.decompress('a.tar.gz')).rejects.toBeInstanceOf(OutcomeUnknownError);
    // 1,000 files at UNPACK_MIN_FILES_PER_SECOND add 4 s.
    await expect(client.files.decompress('a.tar.gz', { files: 1000 })).resolves.toMatchObject({ ok: true });
  });
});

describe('the queue against the service', () => {
  it('starts requests in submission order', async () => {
    const { service, client } = await setup((r) => ({ json: { ...WELL_FORMED, n: r.n } }), { maxInFlight: 1 });
    const names = Array.from({ length: 20 }, (_, i) => `f${i}`);
    await Promise.all(names.map((n, i) => (i % 2 ? client.files.list(n) : client.files.delete([n]))));
    expect(service.seen.map((s) => s.query.get('path') ?? (s.body as { files: string[] }).files[0])).toEqual(names);
  });

  it('a 429 pauses every request for Retry-After, including those in flight, then all succeed', async () => {
    // The first four requests arrive together and are all answered 429 at the same moment.
    let release!: () => void;
    const barrier = new Promise<void>((r) => (release = r));
    let firstReply = 0;
    const { service, client } = await setup(
      async (r) => {
        if (r.n < 4) {
          if (r.n === 3) release();
          await barrier;
          firstReply = firstReply || performance.now();
          return { status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' } };
        }
        return { json: WELL_FORMED, headers: { 'x-ratelimit-remaining': '50' } };
      },
      { maxInFlight: 4 },
    );
    const results = await Promise.all(Array.from({ length: 8 }, () => client.files.index({})));
    expect(results).toHaveLength(8);
    const later = service.seen.slice(4);
    expect(later).toHaveLength(8);
    for (const s of later) expect(s.at - firstReply).toBeGreaterThanOrEqual(1000);
    const st = client.stats();
    expect(st.rateLimited).toBe(4);
    expect(st.retries).toBe(4);
    expect(st.waitedMs).toBeGreaterThanOrEqual(1000);
  });

  it('paces itself inside the window: zero 429s against a strict server', async () => {
    const w = new ServerWindow(5, 1000);
    const { service, client } = await setup(
      () => {
        const d = w.take(performance.now());
        return d.allowed
          ? { json: WELL_FORMED, headers: { 'x-ratelimit-remaining': String(d.remaining) } }
          : { status: 429, json: { error: 'rate' }, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' } };
      },
      { rateLimit: { requests: 5, windowMs: 1000 } },
    );
    await Promise.all(Array.from({ length: 12 }, () => client.deployments.get()));
    expect(service.seen.filter((s) => s.n >= 0)).toHaveLength(12);
    expect(client.stats().rateLimited).toBe(0);
    expect(client.stats().pacedMs).toBeGreaterThan(0);
  });

  it('X-RateLimit-Remaining makes room for another tool on the same key: still zero 429s', async () => {
    const w = new ServerWindow(5, 1000);
    const { client } = await setup(
      () => {
        const d = w.take(performance.now());
        return d.allowed
          ? { json: WELL_FORMED, headers: { 'x-ratelimit-remaining': String(d.remaining) } }
          : { status: 429, json: { error: 'rate' }, headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0' } };
      },
      { rateLimit: { requests: 5, windowMs: 1000 }, maxInFlight: 1 },
    );
    // Someone else just spent 3 of the 5.
    w.prefill(3, performance.now());
    for (let i = 0; i < 6; i++) await client.deployments.get();
    expect(client.stats().rateLimited).toBe(0);
    expect(client.stats().total).toBe(6);
  });
});

describe('logging', () => {
  it('logs operation, status, ms and bytes at debug, and never the key', async () => {
    const { lines, logger } = logCapture();
    const { client } = await setup(
      (r) => (r.path.endsWith('/account') ? { status: 401, json: { error: `bad key ${KEY}` } } : { json: { ...WELL_FORMED, echo: 'x'.repeat(100) } }),
      { logger },
    );
    await client.files.write('a.txt', 'hello');
    await client.account.get().catch(() => undefined);
    const recs = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(recs.map((r) => [r.op, r.status])).toEqual([['files.write', 200], ['account.get', 401]]);
    for (const r of recs) {
      expect(r.level).toBe(20);
      expect(typeof r.ms).toBe('number');
      expect(r.bytesOut).toBeTypeOf('number');
      expect(r.bytesIn).toBeTypeOf('number');
    }
    expect(recs[0]!.bytesOut).toBe(JSON.stringify({ path: 'a.txt', content: 'hello', mode: 'overwrite' }).length);
    expect(lines.join('\n')).not.toContain(KEY);
  });

  it('redacts key-bearing fields a caller logs through the same logger', async () => {
    const { lines, logger } = logCapture();
    const { client } = await setup(() => ({ json: WELL_FORMED }), { logger });
    await client.deployments.get();
    // The child the client logs through censors these paths whatever is passed.
    const { redactingLogger } = await import('../../src/remote/redact.js');
    redactingLogger(logger).debug({ headers: { authorization: `Bearer ${KEY}` }, apiKey: KEY }, 'x');
    expect(lines.join('\n')).not.toContain(KEY);
    expect(lines.join('\n')).toContain('[REDACTED]');
  });
});

describe('transfers', () => {
  async function multipartParts(raw: Buffer, headers: Record<string, unknown>) {
    const parts: Array<{ field: string; filename: string; data: Buffer }> = [];
    await new Promise<void>((resolve, reject) => {
      const bb = busboy({ headers: headers as never });
      bb.on('file', (field, stream, info) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => parts.push({ field, filename: info.filename, data: Buffer.concat(chunks) }));
      });
      bb.on('close', resolve);
      bb.on('error', reject);
      Readable.from([raw]).pipe(bb);
    });
    return parts;
  }

  function nodeService() {
    return (r: Seen): Reply => {
      if (r.path.endsWith('/upload-url')) {
        return { json: { url: `/__node/upload/tok${r.n}`, field: 'files', expiresAt: '' } };
      }
      if (r.path.startsWith('/__node/upload/')) return { json: WELL_FORMED };
      return { status: 404, json: { error: 'no' } };
    };
  }

  it('upload sends one `files` part per file under its basename, without the key', async () => {
    const d = await tmp();
    await mkdir(join(d, 'img'));
    await writeFile(join(d, 'img', 'a.png'), Buffer.from([0, 1, 2, 255]));
    await writeFile(join(d, 'b.bin'), Buffer.alloc(70_000, 9));
    const { service, client } = await setup(nodeService());
    await client.files.upload('static/img', [
      { name: 'static/img/a.png', localPath: join(d, 'img', 'a.png'), size: 4 },
      { name: 'b.bin', localPath: join(d, 'b.bin'), size: 70_000 },
    ]);
    expect(service.seen[0]!.body).toEqual({ path: 'static/img' });
    const up = service.seen[1]!;
    expect(up.path).toBe('/__node/upload/tok0');
    expect(up.auth).toBeUndefined();
    const parts = await multipartParts(up.raw, up.headers);
    expect(parts.map((p) => [p.field, p.filename, p.data.length])).toEqual([['files', 'a.png', 4], ['files', 'b.bin', 70_000]]);
    expect([...parts[0]!.data]).toEqual([0, 1, 2, 255]);
    expect(client.stats()).toMatchObject({ total: 2, unmetered: 1, byOperation: { 'files.upload': 1, 'files.uploadUrl': 1 } });
  });

  it('uploadArchive streams a tar.gz of the listed files with their modes', async () => {
    const d = await tmp();
    await mkdir(join(d, 'bin'));
    await writeFile(join(d, 'bin', 'run.sh'), '#!/bin/sh\necho hi\n');
    await chmod(join(d, 'bin', 'run.sh'), 0o755);
    await writeFile(join(d, 'index.html'), '<h1>hi</h1>');
    await writeFile(join(d, 'not-listed.txt'), 'nope');
    const { service, client } = await setup(nodeService());
    const res = await client.files.uploadArchive(d, ['bin/run.sh', 'index.html'], '/', 'push-1.tar.gz');
    const up = service.seen[1]!;
    expect(up.headers['transfer-encoding']).toBe('chunked');
    const [part] = await multipartParts(up.raw, up.headers);
    expect(part!.filename).toBe('push-1.tar.gz');
    expect(res).toEqual({ path: 'push-1.tar.gz', bytes: part!.data.length, files: 2 });
    const entries: Record<string, { mode: number; body: string }> = {};
    await new Promise<void>((resolve, reject) => {
      const parser = tar.list({
        onReadEntry: (e) => {
          const chunks: Buffer[] = [];
          e.on('data', (c: Buffer) => chunks.push(c));
          e.on('end', () => (entries[e.path] = { mode: e.mode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      });
      parser.on('end', resolve);
      parser.on('error', reject);
      parser.end(part!.data);
    });
    expect(Object.keys(entries).sort()).toEqual(['bin/run.sh', 'index.html']);
    expect(entries['bin/run.sh']!.mode & 0o111).toBe(0o111);
    expect(entries['index.html']!.body).toBe('<h1>hi</h1>');
  });

  it('uploadArchive of a file that vanished fails as outcome-unknown naming the local read', async () => {
    const d = await tmp();
    await writeFile(join(d, 'a.txt'), 'a');
    const { client } = await setup(nodeService());
    const e = await client.files.uploadArchive(d, ['a.txt', 'gone.txt'], '', 'x.tar.gz').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect((e as Error).message).toMatch(/local file/);
  });

  it('refuses a signed URL that would travel in clear text', async () => {
    const { client } = await setup((r) =>
      r.path.endsWith('/upload-url') ? { json: { url: 'http://node.example.com/upload/t', field: 'files', expiresAt: '' } } : { json: {} },
    );
    const d = await tmp();
    await writeFile(join(d, 'a'), 'a');
    await expect(client.files.upload('', [{ name: 'a', localPath: join(d, 'a'), size: 1 }])).rejects.toThrow(/clear text/);
  });

  it('download streams to disk and retries a dropped transfer with a fresh URL', async () => {
    const d = await tmp();
    const content = Buffer.alloc(300_000, 'z');
    let gets = 0;
    const { service, client } = await setup((r) => {
      if (r.path.endsWith('/download-url')) return { json: { url: `/__node/download/t${r.n}`, expiresAt: '' } };
      if (r.path.startsWith('/__node/download/')) return gets++ === 0 ? 'drop' : { text: content.toString() };
      return { status: 404, json: {} };
    });
    const target = join(d, 'out.bin');
    await client.files.download('big.bin', target);
    expect((await readFile(target)).equals(content)).toBe(true);
    expect(await readdir(d)).toEqual(['out.bin']);
    const urls = service.seen.filter((s) => s.path.startsWith('/__node/')).map((s) => s.path);
    expect(urls).toEqual(['/__node/download/t0', '/__node/download/t2']);
    expect(service.seen.filter((s) => s.path.startsWith('/__node/')).every((s) => s.auth === undefined)).toBe(true);
  });

  it('retries a download at one level only: each round is one downloadUrl attempt', async () => {
    const d = await tmp();
    const { service, client } = await setup(() => ({ status: 503, json: { error: 'down' } }), {
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const e = (await client.files.download('a.bin', join(d, 'a.bin')).catch((x: unknown) => x)) as ApiError;
    expect(e).toMatchObject({ status: 503, operation: 'files.downloadUrl' });
    expect(e.message).toContain('Gave up after 3 attempts');
    expect(service.seen.filter((s) => s.path.endsWith('/download-url'))).toHaveLength(3);
    expect(await readdir(d)).toEqual([]);
  });

  it('a failed download leaves no partial file', async () => {
    const d = await tmp();
    const { client } = await setup((r) =>
      r.path.endsWith('/download-url') ? { json: { url: '/__node/download/x', expiresAt: '' } } : { status: 404, json: { error: 'gone' } },
    );
    await expect(client.files.download('a', join(d, 'a'))).rejects.toMatchObject({ status: 404, operation: 'files.download' });
    expect(await readdir(d)).toEqual([]);
  });
});

describe('close', () => {
  it('refuses calls after close', async () => {
    const { client } = await setup(() => ({ json: WELL_FORMED }));
    await client.close();
    await expect(client.deployments.get()).rejects.toMatchObject({ code: 'ECLIENTCLOSED' });
  });
});

describe('answer timeouts per operation', () => {
  it('an ordinary call gets the base; slow node work a multiple; uploads their size; server-side waits on top', () => {
    expect(answerTimeoutMs('files.index', 30_000)).toBe(30_000);
    expect(answerTimeoutMs('files.writeMany', 30_000)).toBe(60_000);
    expect(answerTimeoutMs('files.decompress', 30_000)).toBe(300_000);
    // 64 MiB at 256 KiB/s is 256 s more than the upload's own doubled base.
    expect(answerTimeoutMs('files.upload', 30_000, { bytes: 64 * 1024 * 1024 })).toBe(60_000 + 256_000);
    expect(answerTimeoutMs('deployments.apply', 30_000, { waitMs: 20_000 })).toBe(50_000);
    // HOSTSYNC_TIMEOUT scales every one of them.
    expect(answerTimeoutMs('files.writeMany', 90_000)).toBe(180_000);
  });
});
