/**
 * A failed upload must not leave its source files open (nor tar/gzip running, for an
 * archive): a daemon that retries pushes for hours would otherwise run out of file handles.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appendFile, mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostingClient } from '../../src/remote/client.js';
import { OutcomeUnknownError } from '../../src/remote/errors.js';
import { filesForm, tarGzStream } from '../../src/remote/upload.js';
import { startFakeService, WELL_FORMED, type FakeService } from './fake-service.js';
import { testKey } from '../helpers/keys.js';

const KEY = testKey('upload');
let service: FakeService | undefined;
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  await service?.close();
  service = undefined;
});

/** Open descriptors of this process that point into `dir`. */
async function openUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(join('/proc/self/fd', fd)).catch(() => '');
    if (target.startsWith(dir + '/')) out.push(target);
  }
  return out;
}

/** Incompressible files, large enough that tar is still reading them when the upload dies. */
async function sourceTree(): Promise<{ dir: string; rel: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'hostsync-remote-fd-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const rel: string[] = [];
  for (let i = 0; i < 6; i++) {
    await writeFile(join(dir, `f${i}.bin`), randomBytes(2 * 1024 * 1024));
    rel.push(`f${i}.bin`);
  }
  return { dir, rel };
}

const linux = process.platform === 'linux';

/** A client of a service whose upload node hangs up as soon as an upload's head arrives, while the client is still sending. */
async function droppingUploads(): Promise<HostingClient> {
  service = await startFakeService(
    (r) => (r.path.endsWith('/upload-url') ? { json: { url: `/__node/upload/t${r.n}`, field: 'files', expiresAt: '' } } : { json: {} }),
    { onHead: (_m, path) => (path.startsWith('/__node/upload/') ? 'drop' : undefined) },
  );
  const client = new HostingClient({ baseUrl: service.baseUrl, apiKey: KEY, deploymentId: 'dep-1' });
  cleanups.push(() => client.destroy());
  return client;
}

describe.runIf(linux)('archive upload cleanup', () => {
  it('leaves no source file open after uploads that died mid-body', async () => {
    const { dir, rel } = await sourceTree();
    const client = await droppingUploads();
    for (let i = 0; i < 4; i++) {
      const e = await client.files.uploadArchive(dir, rel, '', `a${i}.tar.gz`).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OutcomeUnknownError);
    }
    // Closing is asynchronous (an fs.read in flight finishes first); it must reach zero.
    await vi.waitFor(async () => expect(await openUnder(dir)).toEqual([]), { timeout: 10_000, interval: 20 });
  });

  it('leaves no file open after multipart file uploads that died mid-body', async () => {
    const { dir, rel } = await sourceTree();
    const client = await droppingUploads();
    const files = rel.map((name) => ({ name, localPath: join(dir, name), size: 2 * 1024 * 1024 }));
    for (let i = 0; i < 4; i++) {
      const e = await client.files.upload('', files).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      // Not left to a garbage collection: the upload has closed what it opened when it ends.
      expect(await openUnder(dir)).toEqual([]);
    }
  });

  it('closes a file part whose file was still opening when the form was closed', async () => {
    const { dir, rel } = await sourceTree();
    const { form, close } = await filesForm('files', [{ name: rel[0]!, localPath: join(dir, rel[0]!), size: 2 * 1024 * 1024 }]);
    const part = form.get('files') as File;
    const body = part.stream() as unknown as AsyncGenerator<Uint8Array>;
    // The part's read starts (its open(2) in flight) and the upload ends before it is answered.
    const first = body.next();
    await close();
    expect((await first).done).toBe(true);
    expect(await openUnder(dir)).toEqual([]);
  });

  it('a file part sends the size found when the form was built, and fails with ELOCALCHANGED once the file changed', async () => {
    const { dir, rel } = await sourceTree();
    const file = join(dir, rel[0]!);
    const read = async (stream: AsyncIterable<Uint8Array>) => {
      let n = 0;
      for await (const chunk of stream) n += chunk.length;
      return n;
    };
    const same = await filesForm('files', [{ name: rel[0]!, localPath: file, size: 2 * 1024 * 1024 }]);
    const part = same.form.get('files') as File;
    expect(part.size).toBe(2 * 1024 * 1024);
    expect(await read(part.stream() as unknown as AsyncIterable<Uint8Array>)).toBe(2 * 1024 * 1024);
    expect(await openUnder(dir)).toEqual([]);

    const changed = await filesForm('files', [{ name: rel[0]!, localPath: file, size: 2 * 1024 * 1024 }]);
    await appendFile(file, 'more');
    const e = await read((changed.form.get('files') as File).stream() as unknown as AsyncIterable<Uint8Array>).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'ELOCALCHANGED' });
    await changed.close();
    expect(await openUnder(dir)).toEqual([]);
  });

  it('destroy() on an archive nobody reads closes its files and stops producing', async () => {
    const { dir, rel } = await sourceTree();
    const archive = tarGzStream(dir, rel);
    // Let tar open files and fill its buffers; nothing consumes the stream.
    await vi.waitFor(async () => expect((await openUnder(dir)).length).toBeGreaterThan(0), { timeout: 10_000, interval: 5 });
    archive.destroy();
    expect(archive.stream.destroyed).toBe(true);
    await vi.waitFor(async () => expect(await openUnder(dir)).toEqual([]), { timeout: 10_000, interval: 20 });
    const produced = archive.bytes();
    await new Promise((r) => setTimeout(r, 50));
    expect(archive.bytes()).toBe(produced);
  });
});
