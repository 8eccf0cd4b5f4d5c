/**
 * Builders for the pure-core tables: entries from literal contents, so a row reads as the
 * files it describes. The hash is a stand-in (FNV-1a 64), as good as XXH64 for equality.
 */
import type { Change, Entry, Snapshot } from '../../src/model/types.js';

export function fakeHash(content: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(content, 'utf8')) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

export interface FileOpts {
  /** Executable bit. */
  x?: boolean;
  /** Local text flag; leave undefined for remote/base entries. */
  text?: boolean;
}

/** An entry whose content is `content` (UTF-8). */
export function file(path: string, content: string, opts: FileOpts = {}): Entry {
  const e: Entry = { path, hash: fakeHash(content), size: Buffer.byteLength(content), executable: opts.x ?? false };
  if (opts.text !== undefined) e.text = opts.text;
  return e;
}

/** An entry of a given size whose content is identified by `tag` (for sizes too big to spell out). */
export function sized(path: string, tag: string, size: number, opts: FileOpts = {}): Entry {
  const e: Entry = { path, hash: fakeHash(`${tag}:${size}`), size, executable: opts.x ?? false };
  if (opts.text !== undefined) e.text = opts.text;
  return e;
}

export function snap(...entries: Entry[]): Snapshot {
  return new Map(entries.map((e) => [e.path, e]));
}

/** A change as one exact line, so a table row states the whole outcome. */
export function show(c: Change): string {
  switch (c.kind) {
    case 'write':
      return `write ${c.path}${c.create ? ' (new)' : ''}${c.entry.executable ? ' +x' : ''}`;
    case 'delete':
      return `delete ${c.path}`;
    case 'chmod':
      return `chmod ${c.path} ${c.executable ? '+x' : '-x'}`;
    case 'rename':
      return `rename ${c.from} -> ${c.to}`;
  }
}

export const MiB = 1024 * 1024;
