/**
 * The interrupted-undo marker, `.hostsync/<deployment>/undo-pending.json`: which push
 * journals an undo is taking back while it changes the remote.
 *
 * Invariant: written (fsync + rename) before the undo's first remote change, removed only
 * after the base was saved from the verifying read. In between, the remote holds a mix of
 * pushed and restored files that the base on disk does not describe: a three-way merge
 * against it would call the restored files remote drift, and a pull would take them over
 * the local edits. So while the file exists every command that merges refuses (sync/
 * undo-guard.ts) and `undo --continue` (or a plain `undo`) finishes the same journals.
 * An unreadable marker counts as present: refusing is the safe side of not knowing.
 */
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';

export interface UndoPending {
  /** Journal ids being taken back, newest first. */
  journals: string[];
  /** When the interrupted undo started (client clock). */
  startedAt: string;
}

const VERSION = 1;
const UNKNOWN: UndoPending = { journals: [], startedAt: '' };

export class UndoPendingStore {
  constructor(
    readonly dir: string,
    readonly deploymentId: string,
  ) {}

  get file(): string {
    return path.join(this.dir, 'undo-pending.json');
  }

  /** The marker, or null when none is there; a torn or foreign file reads as a marker with no journals. */
  async load(): Promise<UndoPending | null> {
    let raw: string;
    try {
      raw = await readFile(this.file, 'utf8');
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? null : { ...UNKNOWN };
    }
    try {
      const parsed = JSON.parse(raw) as { version: number; deploymentId: string } & UndoPending;
      if (parsed.version !== VERSION || parsed.deploymentId !== this.deploymentId || !Array.isArray(parsed.journals)) return { ...UNKNOWN };
      return {
        journals: parsed.journals.filter((j): j is string => typeof j === 'string'),
        startedAt: typeof parsed.startedAt === 'string' ? parsed.startedAt : '',
      };
    } catch {
      return { ...UNKNOWN };
    }
  }

  async save(pending: UndoPending): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file, JSON.stringify({ version: VERSION, deploymentId: this.deploymentId, ...pending }));
  }

  async clear(): Promise<void> {
    await rm(this.file, { force: true });
  }
}
