/**
 * This machine's copy of the base record (base-record.ts) as it last read or wrote it, in
 * `.hostsync/<deployment>/record.json` (where it lives on the deployment, its XXH64, size
 * and tail, the ids of the batches this machine recorded) and `record.txt` (its text).
 * The hash is what files.index lists for the record: equal means this machine has seen every
 * batch, at no request. The text is what the next batch is appended to (and hashed with).
 * A missing or damaged copy is no copy: the record is read again from the deployment.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { RECORD_OWN_IDS_KEPT } from './tunables.js';

/** Throws on bytes that are not UTF-8; keeps a leading BOM, as `readFile(f, 'utf8')` does. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export interface RecordCopyMeta {
  /** The record's path on the deployment. */
  path: string;
  hash: string;
  size: number;
  tail: string;
  /** Ids of batches this machine recorded, newest last. */
  own: string[];
}

export class RecordCopyStore {
  constructor(readonly dir: string) {}

  private get metaFile(): string {
    return path.join(this.dir, 'record.json');
  }

  private get textFile(): string {
    return path.join(this.dir, 'record.txt');
  }

  async meta(): Promise<RecordCopyMeta | null> {
    try {
      const m = JSON.parse(await readFile(this.metaFile, 'utf8')) as RecordCopyMeta;
      if (typeof m.path !== 'string' || typeof m.hash !== 'string' || typeof m.size !== 'number' || typeof m.tail !== 'string' || !Array.isArray(m.own)) return null;
      return m;
    } catch {
      return null;
    }
  }

  /**
   * The text, or null when it is missing or is not the one `meta` describes (another size,
   * another tail, bytes that are not UTF-8). The size is the bytes', known before decoding:
   * counting a decoded string's UTF-8 bytes took longer than reading the file (~8 ms at
   * 100k files, on every push, status and watch cycle).
   */
  async text(meta: RecordCopyMeta): Promise<string | null> {
    try {
      const bytes = await readFile(this.textFile);
      if (bytes.length !== meta.size) return null;
      const text = STRICT_UTF8.decode(bytes);
      return text.endsWith(`@tail ${meta.tail}\n`) ? text : null;
    } catch {
      return null;
    }
  }

  /** Text first, then meta (a kill between leaves a meta that does not match the text: no copy). */
  async save(meta: RecordCopyMeta, text: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.textFile, text);
    await writeFileAtomic(this.metaFile, JSON.stringify({ ...meta, own: meta.own.slice(-RECORD_OWN_IDS_KEPT) }));
  }

  async clear(): Promise<void> {
    await rm(this.metaFile, { force: true });
    await rm(this.textFile, { force: true });
  }
}
