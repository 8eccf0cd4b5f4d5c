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
import { ARCHIVE_READ_CHUNK_BYTES } from '../config/tunables.js';

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
}

/**
 * A gzip'd tar of `relPaths` (POSIX, relative to `root`) as a stream. Modes and mtimes
 * travel (decompress keeps them, so executable bits survive); owner ids do not.
 * strict: a file that vanished or cannot be read fails the stream rather than being
 * silently left out of the archive.
 */
export function tarGzStream(root: string, relPaths: string[]): ArchiveStream {
  let produced = 0;
  const pack = tar.create(
    { gzip: true, cwd: root, portable: true, noDirRecurse: true, strict: true, maxReadSize: ARCHIVE_READ_CHUNK_BYTES },
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
  return { stream: out, bytes: () => produced };
}
