/**
 * Multipart bodies for the signed upload URL, streamed from disk.
 *
 * Invariant: no file is ever held whole in memory. Files become file-backed Blobs
 * (fs.openAsBlob) and a tar.gz is produced as a stream while it is sent; undici's
 * own multipart encoder frames both (it sends parts of unknown size chunked).
 */

import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { FormData } from 'undici';
import * as tar from 'tar';
import { ARCHIVE_READ_CHUNK_BYTES } from './tunables.js';

export interface UploadFile {
  /** Remote name: only the basename is used; the URL fixes the directory. */
  name: string;
  localPath: string;
  size: number;
}

/** A multipart form with one `field` part per file, each read lazily from disk. Build it fresh per attempt. */
export async function filesForm(field: string, files: UploadFile[]): Promise<FormData> {
  const form = new FormData();
  for (const f of files) {
    const blob = await openAsBlob(f.localPath);
    form.append(field, blob, basename(f.name));
  }
  return form;
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
export function streamForm(field: string, fileName: string, source: AsyncIterable<Uint8Array>, type: string): FormData {
  const form = new FormData();
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
  const live = new Set<tar.WriteEntry>();
  const pack = tar.create(
    {
      gzip: true, cwd: root, portable: true, noDirRecurse: true, strict: true, maxReadSize: ARCHIVE_READ_CHUNK_BYTES,
      onWriteEntry: (entry) => {
        if (!(entry instanceof tar.WriteEntry)) return;
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
function stopEntry(entry: tar.WriteEntry): void {
  entry.remain = 0;
  entry.blockRemain = 0;
  const parked = entry.listenerCount('drain') > 0;
  entry.emit('error', Object.assign(new Error('archive cancelled'), { code: 'ECANCELLED' }));
  if (parked) entry.emit('drain');
}
