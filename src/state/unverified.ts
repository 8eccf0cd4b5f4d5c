/**
 * Writes watch mode sent but has not yet saved into the base, in
 * `.hostsync/<deployment>/unverified.json`.
 *
 * Watch verifies a cycle's writes with the NEXT read that covers them (the next cycle's
 * scoped pre-read, or one idle-time check), and saves the base only now and then. Until
 * the base on disk holds a write, its expectation lives here, written BEFORE the write is
 * sent. A daemon killed at any instant leaves this file; the next start reads each path
 * once: what the remote holds equals what we sent -> that becomes the base (so a local
 * edit made since is a plain push, not a conflict with ourselves); anything else -> the
 * base stays as it was and the three-way merge decides (conflict, never an overwrite).
 * A missing or unreadable file is an empty record: the merge alone is still safe.
 * That is also why it is written without fsync (atomic-write.ts, `durable: false`): it
 * sits on the save-to-live path before every write, and the only thing an OS crash can
 * cost by losing it is a conflict reported against our own bytes, never an overwrite.
 */
import { readFile, rm } from 'node:fs/promises';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';

/** What the remote must hold at a path for our write to count as landed; null = no file. */
export type Expectation = {
  /** XXH64 of the bytes sent. */
  hash: string;
  /** Null when the bytes sent were read after the scan (size not known to the engine). */
  size: number | null;
  executable: boolean;
} | null;

const VERSION = 1;
type Packed = [string, number | null, 0 | 1] | null;

export class UnverifiedStore {
  constructor(
    readonly dir: string,
    readonly deploymentId: string,
  ) {}

  get file(): string {
    return path.join(this.dir, 'unverified.json');
  }

  async load(): Promise<Map<string, Expectation>> {
    const out = new Map<string, Expectation>();
    let raw: string;
    try {
      raw = await readFile(this.file, 'utf8');
    } catch {
      return out;
    }
    try {
      const parsed = JSON.parse(raw) as { version: number; deploymentId: string; writes: Record<string, Packed> };
      if (parsed.version !== VERSION || parsed.deploymentId !== this.deploymentId) return out;
      for (const [p, v] of Object.entries(parsed.writes)) {
        if (v === null) out.set(p, null);
        else if (Array.isArray(v) && typeof v[0] === 'string') out.set(p, { hash: v[0], size: typeof v[1] === 'number' ? v[1] : null, executable: v[2] === 1 });
      }
    } catch {
      out.clear();
    }
    return out;
  }

  /** Replaces the record (an empty one removes the file). */
  async save(writes: ReadonlyMap<string, Expectation>): Promise<void> {
    if (writes.size === 0) {
      await rm(this.file, { force: true });
      return;
    }
    const packed: Record<string, Packed> = {};
    for (const [p, e] of writes) packed[p] = e === null ? null : [e.hash, e.size, e.executable ? 1 : 0];
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file, JSON.stringify({ version: VERSION, deploymentId: this.deploymentId, writes: packed }), { durable: false });
  }
}
