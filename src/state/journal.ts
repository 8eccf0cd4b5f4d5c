/**
 * The push journal: before a push changes the remote, what it is about to change and the
 * remote entries it expects afterwards, one file per push in `<state dir>/journal/`.
 * `undo` reads it to take the push back; `history` lists it. A journal whose push never
 * finished stays `pending`: undo treats each of its paths by what the remote holds
 * (before: nothing to do, after: undo it, anything else: refused).
 *
 * Invariant: written (fsync + rename) before the first remote change of its push. A watch
 * cycle's journal skips the fsync (`durable: false`): it rides on the save-to-live path of
 * every save, and what an OS crash could cost is undo of that one cycle (files.history
 * still holds what it replaced); a killed process loses nothing (the page cache outlives it).
 */
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic, type AtomicWriteOptions } from '../local/atomic-write.js';
import type { Entry } from '../model/types.js';
import { JOURNAL_KEEP } from './tunables.js';

/** One remote path a push changed: its entry before and after (null: absent). */
export interface JournalRecord {
  path: string;
  before: Entry | null;
  after: Entry | null;
  /** The base entry before the push: undo puts it back, so the sync state is as before too (null: absent). */
  base: Entry | null;
  /** This path is a rename's target; the file was at `movedFrom`. */
  movedFrom?: string;
  /** This path is a rename's source; the file went to `movedTo`. */
  movedTo?: string;
}

/**
 * A server-side archive (files.compress) of remote content a push replaced:
 *   safety: content a --force or --mirror push overwrote or deleted that the base did not hold;
 *   undo:   files overwritten by an upload, which files.history does not cover.
 */
export interface JournalArchive {
  kind: 'safety' | 'undo';
  /** Volume-relative path of the archive, under `.hostsync/backups/`. */
  archive: string;
  paths: string[];
}

export interface Journal {
  id: string;
  /** Client clock; undo finds the history versions this push saved from it. */
  startedAt: string;
  finishedAt: string | null;
  undoneAt: string | null;
  state: 'pending' | 'done' | 'undone';
  records: JournalRecord[];
  archives: JournalArchive[];
}

const VERSION = 1;

export class JournalStore {
  constructor(readonly dir: string) {}

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  /** Sortable by time, unique per process. */
  private static seq = 0;
  private newId(): string {
    return `${Date.now().toString().padStart(14, '0')}-${process.pid}-${(JournalStore.seq++).toString().padStart(4, '0')}`;
  }

  /** Writes a new pending journal; returns it and the journals pruned to make room (their archives may go). */
  async begin(records: JournalRecord[], archives: JournalArchive[], startedAt: Date, opts: AtomicWriteOptions = {}): Promise<{ journal: Journal; pruned: Journal[] }> {
    const journal: Journal = { id: this.newId(), startedAt: startedAt.toISOString(), finishedAt: null, undoneAt: null, state: 'pending', records, archives };
    await this.write(journal, opts);
    return { journal, pruned: await this.prune() };
  }

  async write(j: Journal, opts: AtomicWriteOptions = {}): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFileAtomic(this.file(j.id), JSON.stringify({ version: VERSION, ...j }), opts);
  }

  /** Newest first. Unreadable files are skipped: a journal is a help, never a reason to fail. */
  async list(): Promise<Journal[]> {
    const out: Journal[] = [];
    for (const n of (await this.names()).reverse()) {
      const j = await this.read(n);
      if (j) out.push(j);
    }
    return out;
  }

  private async names(): Promise<string[]> {
    try {
      return (await readdir(this.dir)).filter((n) => n.endsWith('.json')).sort();
    } catch {
      return [];
    }
  }

  private async read(name: string): Promise<Journal | null> {
    try {
      const j = JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as Journal & { version: number };
      if (j.version !== VERSION || !Array.isArray(j.records) || !Array.isArray(j.archives)) return null;
      const { version: _v, ...journal } = j;
      return journal;
    } catch {
      return null; // torn or foreign
    }
  }

  private async prune(): Promise<Journal[]> {
    const names = await this.names();
    const pruned: Journal[] = [];
    for (const n of names.slice(0, Math.max(0, names.length - JOURNAL_KEEP))) {
      const j = await this.read(n);
      if (j) pruned.push(j);
      await rm(path.join(this.dir, n), { force: true });
    }
    return pruned;
  }
}
