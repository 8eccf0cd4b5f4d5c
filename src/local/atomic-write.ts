/**
 * Replace a file so a reader (or a crash) sees either the old or the new content, never a
 * mix: write a temp file beside it, fsync it, rename it over the target, fsync the
 * directory so the rename itself is durable.
 *
 * `durable: false` skips both fsyncs: the rename still makes the replacement atomic for
 * every reader and for a killed process (the page cache outlives it), only an OS crash or
 * power cut may lose it or leave an empty file. For files written on a latency-critical
 * path whose loss such a crash can afford (a live status view, a record whose absence is
 * safe by design); each caller says why.
 */
export interface AtomicWriteOptions {
  durable?: boolean;
}

import fsp, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export async function writeFileAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const durable = opts.durable ?? true;
  const dir = path.dirname(file);
  // Same directory (a rename cannot cross file systems), unique per writer.
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // Exclusive: never through a link someone planted at the temp name.
  const fh = await fsp.open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(data);
    if (durable) await fh.sync();
  } catch (err) {
    await fh.close().catch(() => {});
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  await fh.close();
  try {
    await fsp.rename(tmp, file);
  } catch (err) {
    await fsp.rm(tmp, { force: true });
    throw err;
  }
  if (durable) await syncDir(dir);
}

async function syncDir(dir: string): Promise<void> {
  let dh: FileHandle | undefined;
  try {
    dh = await fsp.open(dir, 'r');
    await dh.sync();
  } catch {
    // Some platforms and file systems refuse to fsync a directory; the rename already happened.
  } finally {
    await dh?.close();
  }
}
