/**
 * Multipart bodies for the signed upload URL, streamed from disk.
 *
 * Invariant: no file is ever held whole in memory. Files are read in chunks as they are
 * sent (DiskFile) and a tar.gz is produced as a stream while it is sent; undici's
 * own multipart encoder frames both (it sends parts of unknown size chunked).
 * Invariant: an upload that ends, sent or not, leaves none of its files open.
 */

import type { Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { availableParallelism } from 'node:os';
import type { FormData } from 'undici';
import { createRequire } from 'node:module';
import type * as Tar from 'tar';
import { GzipMembers } from './gzip-members.js';
import { UPLOAD_FILE_READ_BYTES, ARCHIVE_GZIP_MAX_JOBS, ARCHIVE_GZIP_MEMBER_BYTES, ARCHIVE_GZIP_QUEUE_PIECES, ARCHIVE_GZIP_WRITE_BYTES, ARCHIVE_PART_WAIT_POLL_MS, ARCHIVE_READ_CHUNK_BYTES, ARCHIVE_SYNC_MAX_FILE_BYTES } from './tunables.js';

export interface UploadFile {
  /** Remote name: only the basename is used; the URL fixes the directory. */
  name: string;
  localPath: string;
  size: number;
}

const require = createRequire(import.meta.url);
let tarModule: typeof Tar | null = null;

/** tar, loaded with the first archive: a command that sends none does not pay its start-up (0.03 s of CPU). */
function tar(): typeof Tar {
  return (tarModule ??= require('tar') as typeof Tar);
}

/**
 * undici's FormData, whose module is undici's index (see undici-agent.ts): loaded on the
 * first upload, so a command that uploads nothing does not pay for it.
 */
async function newForm(): Promise<FormData> {
  const undici = (await import('undici')) as typeof import('undici') & { default?: typeof import('undici') };
  // Node's loader names a CommonJS package's exports; in the CLI bundle (esbuild, code
  // splitting) an import() of one has only `default`, the module's exports (evanw/esbuild#3245).
  const { FormData } = undici.FormData === undefined ? undici.default! : undici;
  return new FormData();
}

export interface FilesForm {
  form: FormData;
  /** Closes every file the form's parts opened; the upload calls it when it ends, sent or not. Idempotent. */
  close(): Promise<void>;
}

/** A multipart form with one `field` part per file, each read lazily from disk. Build it fresh per attempt. */
export async function filesForm(field: string, files: UploadFile[]): Promise<FilesForm> {
  const form = await newForm();
  const parts: DiskFile[] = [];
  for (const f of files) {
    const part = new DiskFile(f.localPath, basename(f.name), await stat(f.localPath, { bigint: true }));
    parts.push(part);
    form.append(field, part);
  }
  return { form, close: async () => void (await Promise.all(parts.map((p) => p.close()))) };
}

/**
 * A file part of a multipart upload, read from disk in chunks through a handle this module
 * opens and closes. A file-backed Blob (fs.openAsBlob) did this before, but when its stream
 * is left unfinished (the connection dropped mid-body, a timeout) its file stays open until
 * garbage collection, as cancelling the stream does not close it (Node 20 to 24): a
 * `watch` whose uploads kept failing held a descriptor per file for as long as no
 * collection came. Like that Blob, it sends the size stat found when the form was built
 * (undici's Content-Length) and fails with ELOCALCHANGED when the file's size or mtime is
 * no longer that, before or while it is read.
 */
class DiskFile extends File {
  private handle: FileHandle | null = null;
  private closed = false;

  constructor(
    private readonly localPath: string,
    name: string,
    private readonly expected: { size: bigint; mtimeNs: bigint },
  ) {
    super([], name);
    // Own properties shadow Blob's prototype getters; undici reads exactly these two.
    Object.defineProperty(this, 'size', { value: Number(expected.size) });
    Object.defineProperty(this, 'stream', { value: () => this.read() });
  }

  private async *read(): AsyncGenerator<Uint8Array> {
    if (this.closed || this.handle) throw new Error(`upload part ${this.name}: read after it was closed, or twice`);
    const fh = await open(this.localPath, 'r');
    // Closed while the file was opening (the upload ended first): close() found no handle to
    // close, and nobody may pull this stream again to reach the `finally` below.
    if (this.closed) return void (await fh.close());
    this.handle = fh;
    try {
      const size = Number(this.expected.size);
      // Checked before the first byte and again before the last chunk goes (a file cut short
      // shows as a read of nothing): two stats per file, not one per chunk.
      await this.unchanged(fh);
      let sent = 0;
      while (sent < size) {
        const buf = Buffer.allocUnsafe(Math.min(UPLOAD_FILE_READ_BYTES, size - sent));
        const { bytesRead } = await fh.read(buf, 0, buf.length, sent);
        sent += bytesRead;
        if (bytesRead === 0 || sent === size) await this.unchanged(fh, bytesRead === 0);
        yield buf.subarray(0, bytesRead);
      }
    } finally {
      await this.close();
    }
  }

  private async unchanged(fh: FileHandle, shortRead = false): Promise<void> {
    const now = await fh.stat({ bigint: true });
    if (!shortRead && now.size === this.expected.size && now.mtimeNs === this.expected.mtimeNs) return;
    throw Object.assign(new Error(`${this.localPath} changed while it was being sent`), { code: 'ELOCALCHANGED' });
  }

  async close(): Promise<void> {
    this.closed = true;
    const fh = this.handle;
    this.handle = null;
    await fh?.close();
  }
}

/**
 * A File whose bytes come from a one-shot stream of unknown length. undici's
 * multipart encoder reads parts through `stream()` and, when `size` is not a number,
 * sends the form with chunked transfer encoding instead of a Content-Length.
 */
class StreamedFile extends File {
  constructor(source: AsyncIterable<Uint8Array>, name: string, type: string) {
    super([], name, { type });
    // Own properties shadow Blob's prototype getters; undici reads exactly these two.
    Object.defineProperty(this, 'size', { value: undefined });
    Object.defineProperty(this, 'stream', { value: () => source });
  }
}

/** A form with one part whose bytes are `source`, streamed as they are produced. Single use. */
export async function streamForm(field: string, fileName: string, source: AsyncIterable<Uint8Array>, type: string): Promise<FormData> {
  const form = await newForm();
  form.append(field, new StreamedFile(source, fileName, type));
  return form;
}

export interface ArchiveStream {
  stream: Readable;
  /** Compressed bytes produced so far (final once the stream ended). */
  bytes(): number;
  /**
   * Stops the archive: unpipes and destroys both ends and makes tar close every file it
   * holds open. Idempotent; harmless after the stream ended. The files close as soon as
   * any read already in flight returns (a few event-loop turns), not synchronously.
   */
  destroy(): void;
}

/**
 * A gzip'd tar of `relPaths` (POSIX, relative to `root`) as a stream. Modes and mtimes
 * travel (decompress keeps them, so executable bits survive); owner ids do not.
 * strict: a file that vanished or cannot be read fails the stream rather than being
 * silently left out of the archive.
 */
export function tarGzStream(root: string, relPaths: string[]): ArchiveStream {
  let produced = 0;
  let stopped = false;
  const live = new Set<Tar.WriteEntry>();
  const pack = tar().create(
    {
      gzip: true, cwd: root, portable: true, noDirRecurse: true, strict: true, maxReadSize: ARCHIVE_READ_CHUNK_BYTES,
      onWriteEntry: (entry) => {
        if (!(entry instanceof tar().WriteEntry)) return;
        if (stopped) {
          stopEntry(entry);
          return;
        }
        live.add(entry);
        entry.on('end', () => live.delete(entry));
      },
    },
    relPaths,
  );
  const out = new PassThrough({ highWaterMark: 1 << 16 });
  pack.on('data', (chunk: Buffer) => {
    produced += chunk.length;
  });
  pack.on('error', (err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  // The error may come before the consumer attached (tar lstat's files at once); the
  // consumer still sees it, since iterating a destroyed stream throws its error.
  out.on('error', () => {});
  pack.pipe(out);
  return {
    stream: out,
    bytes: () => produced,
    destroy: () => {
      if (stopped) return;
      stopped = true;
      pack.unpipe(out);
      out.destroy();
      for (const entry of live) stopEntry(entry);
      live.clear();
      pack.destroy();
    },
  };
}

/** One file of an archive part: its path under the root and the lstat tar uses for it, so its entry's size is known before tar reads it. */
export interface PartFile {
  path: string;
  stat: Stats;
}

/**
 * What an archive part is cut by (the sync layer's archive-bound.ts gives the numbers).
 * `fits(flushed, tarBytes)`: whether a part whose compressed output was `flushed` bytes at
 * its last full flush may take `tarBytes` more bytes of tar (entries; the end of the
 * archive is the budget's to count) and still end within the limit, at worst.
 */
export interface PartBudget {
  /** At most this many tar bytes for a file: header, pax records, data and padding. */
  entryBytes(path: string, size: number): number;
  fits(flushed: number, tarBytes: number): boolean;
  /** The limit itself: a part that would pass it anyway is aborted before that byte is sent. */
  maxBytes: number;
}

export interface ArchivePart extends ArchiveStream {
  /** How many of the leading files the part carries (final once the stream ended). */
  files(): number;
}

/**
 * A gzip'd tar of the leading files of `files` that fit `budget` by their COMPRESSED
 * size, as a stream: the files go in, in order, while the worst case of what is left to
 * compress still fits after what has come out. When the worst case no longer fits, tar
 * and gzip are brought level (every admitted byte handed to gzip and out as complete
 * members, so the output so far is exact and complete) and the check is made again from
 * there; when it still fails, the part ends. A compressible tree thus fills a part to
 * near the limit, while incompressible bytes are cut by the worst case, as before.
 *
 * tar uses the given lstat results (`statCache`), so an entry is exactly as large as the
 * budget counted. The first file must fit an empty part (the caller checks). gzip runs on
 * libuv's thread pool, on several cores at once (gzip-members.ts), beside tar, and gets
 * tar's output in ARCHIVE_GZIP_WRITE_BYTES
 * pieces (a write per tar header costs more than compressing it). When no file is over
 * ARCHIVE_SYNC_MAX_FILE_BYTES, tar reads synchronously, a file at a time between waits
 * for gzip (a third of the CPU of tar's asynchronous reads on many small files, and never
 * more than that much of a file in memory); otherwise it streams as tarGzStream does.
 * Same strictness as tarGzStream.
 */
export function tarGzPart(root: string, files: readonly PartFile[], budget: PartBudget, syncMaxFileBytes = ARCHIVE_SYNC_MAX_FILE_BYTES): ArchivePart {
  let produced = 0;
  let admitted = 0;
  let ended = 0;
  let stopped = false;
  let wake: (() => void) | null = null;
  const poke = (): void => {
    const w = wake;
    wake = null;
    w?.();
  };
  const live = new Set<Tar.WriteEntry>();
  const sync = files.every((f) => !f.stat.isFile() || f.stat.size <= syncMaxFileBytes);
  const options: Tar.TarOptionsWithAliasesAsync = {
    cwd: root, portable: true, noDirRecurse: true, strict: true, maxReadSize: ARCHIVE_READ_CHUNK_BYTES,
    statCache: new Map(files.map((f) => [resolve(root, f.path), f.stat])),
    onWriteEntry: (entry) => {
      if (!(entry instanceof tar().WriteEntry)) return;
      if (stopped) {
        stopEntry(entry);
        return;
      }
      live.add(entry);
      entry.on('end', () => {
        live.delete(entry);
        ended++;
        poke();
      });
    },
  };
  const t = tar();
  const pack = sync ? new t.PackSync(options) : new t.Pack(options);
  const gz = new GzipMembers({ blockBytes: ARCHIVE_GZIP_MEMBER_BYTES, concurrency: Math.max(1, Math.min(availableParallelism(), ARCHIVE_GZIP_MAX_JOBS)) });
  const out = new PassThrough({ highWaterMark: 1 << 16 });
  const fail = (err: unknown): void => {
    out.destroy(err instanceof Error ? err : new Error(String(err)));
    stop();
  };
  // Registered before the pipe, so a chunk that would pass the limit never reaches `out`.
  gz.on('data', (chunk: Buffer) => {
    produced += chunk.length;
    if (produced > budget.maxBytes) fail(new Error(`archive part passed the ${budget.maxBytes}-byte upload limit while being built: not sent`));
  });
  gz.on('drain', () => {
    if (!stopped) pack.resume();
    poke();
  });
  pack.on('error', fail);
  gz.on('error', fail);
  out.on('error', () => {});
  gz.pipe(out);

  // tar's output, gathered into pieces for gzip.
  let held: Buffer[] = [];
  let heldBytes = 0;
  let queued = 0; // pieces gzip has not finished with
  const handOver = (): void => {
    if (heldBytes === 0 || stopped) return;
    const piece = held.length === 1 ? held[0]! : Buffer.concat(held, heldBytes);
    held = [];
    heldBytes = 0;
    queued++;
    const taken = gz.write(piece, () => {
      queued--;
      poke();
    });
    // Backed up: an asynchronous tar pauses (its entries wait); a synchronous one is waited for between files.
    if (!taken && !sync) pack.pause();
  };
  pack.on('data', (chunk: Buffer) => {
    held.push(chunk);
    heldBytes += chunk.length;
    if (heldBytes >= ARCHIVE_GZIP_WRITE_BYTES) handOver();
  });
  pack.on('end', () => {
    handOver();
    gz.end();
  });

  const nextEvent = (): Promise<void> =>
    new Promise<void>((r) => {
      wake = r;
      // Belt and braces: a missed wake-up costs one poll, never a hang.
      setTimeout(r, ARCHIVE_PART_WAIT_POLL_MS).unref();
    });
  const untilLevel = async (): Promise<void> => {
    while (!stopped && !(ended === admitted && pack.bufferLength === 0)) await nextEvent();
    handOver();
  };
  /** Compressed bytes produced once everything given to gzip so far is out (complete members). */
  const flush = (): Promise<number> => new Promise((r) => gz.membersOut(() => r(produced + gz.readableLength)));

  const feed = async (): Promise<void> => {
    let flushed = 0; // compressed bytes at the last full flush (the start: none)
    let pending = 0; // tar bytes admitted since then, at most
    for (const f of files) {
      const more = budget.entryBytes(f.path, f.stat.isFile() ? f.stat.size : 0);
      if (!budget.fits(flushed, pending + more) && pending > 0) {
        await untilLevel();
        if (stopped) return;
        flushed = await flush();
        pending = 0;
      }
      if (stopped) return;
      if (!budget.fits(flushed, pending + more)) {
        if (admitted === 0) {
          fail(new Error(`${f.path} does not fit an archive part on its own`));
          return;
        }
        break;
      }
      pack.write(f.path);
      admitted++;
      pending += more;
      // A few pieces queued keep gzip busy while tar reads the next files.
      while (sync && !stopped && queued >= ARCHIVE_GZIP_QUEUE_PIECES) await nextEvent();
    }
    if (!stopped) pack.end();
  };
  feed().catch(fail);

  function stop(): void {
    if (stopped) return;
    stopped = true;
    poke();
    gz.unpipe(out);
    gz.destroy();
    for (const entry of live) stopEntry(entry);
    live.clear();
    pack.destroy();
  }
  return {
    stream: out,
    bytes: () => produced,
    files: () => admitted,
    destroy: () => {
      out.destroy();
      stop();
    },
  };
}

/**
 * Makes a tar WriteEntry close its file through tar's own code, whatever state it is in.
 * tar has no abort: destroying a Pack leaves each entry's fd open (paused on back-pressure
 * forever), and closing an fd behind tar's back could close a reused descriptor. So:
 * - an error mark makes an entry whose open(2) is still pending close the fd at once
 *   when it arrives (WriteEntry checks it in its open callback) and never read;
 * - with nothing left to read, a read in flight takes tar's "did not encounter expected
 *   EOF" path, which closes the fd;
 * - an entry parked waiting for 'drain' finds nothing left to read, closes, and ends.
 * An errored entry never ends, so the pack starts at most its `jobs` more entries, each
 * stopped here as it is created (onWriteEntry), then starves.
 */
function stopEntry(entry: Tar.WriteEntry): void {
  entry.remain = 0;
  entry.blockRemain = 0;
  const parked = entry.listenerCount('drain') > 0;
  entry.emit('error', Object.assign(new Error('archive cancelled'), { code: 'ECANCELLED' }));
  if (parked) entry.emit('drain');
}
