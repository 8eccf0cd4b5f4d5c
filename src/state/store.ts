import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { writeFileAtomic } from '../local/atomic-write.js';
import { decodeState, encodeState } from './state-file.js';
import { BaseJournal } from './base-journal.js';
import type { Entry, Snapshot } from '../model/types.js';
import type { RemoteCache, SyncState } from './sync-state.js';

export type { RemoteCache, SyncState } from './sync-state.js';


const EMPTY: SyncState = { base: null, remote: null, applyPending: false };

/** The file names of older releases: read as absent, removed when the new file is written. */
const FORMER_FILES = ['state.json'];

/**
 * `.hostsync/` keeps itself out of git (as a virtualenv does), so `git stash` or a branch
 * switch never rewinds the base to an older one and fakes remote drift.
 */
async function ignoreFromGit(stateRoot: string): Promise<void> {
  await writeFile(path.join(stateRoot, '.gitignore'), '*\n', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

export class StateStore {
  /** Base changes since state.bin was written (watch cycles append there; load replays it). */
  readonly journal: BaseJournal;

  constructor(
    readonly dir: string,
    readonly deploymentId: string,
  ) {
    this.journal = new BaseJournal(path.join(dir, 'state.journal'), deploymentId);
  }

  get file(): string {
    return path.join(this.dir, 'state.bin');
  }

  /** A marker file, not part of state.bin: it flips twice per push and must stay cheap. */
  private get applyPendingFile(): string {
    return path.join(this.dir, 'apply-pending');
  }

  async applyPending(): Promise<boolean> {
    try {
      await stat(this.applyPendingFile);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * The pending apply was sent and not answered in time (a slow install): the marker keeps
   * when, so a later read that sees the app up can clear it (applyTimedOutAt).
   */
  async markApplyTimedOut(at: Date): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    // With the state's identity: a push since (--no-apply, a failed one) owes an apply of its own.
    await writeFile(this.applyPendingFile, `${JSON.stringify({ timedOutAt: at.toISOString(), state: await this.identity() })}\n`);
  }

  /**
   * When the pending apply went unanswered (markApplyTimedOut), as long as nothing was
   * pushed since; null otherwise (none pending, never sent, or a later push owes its own).
   */
  async applyTimedOutAt(): Promise<Date | null> {
    try {
      const mark = JSON.parse(await readFile(this.applyPendingFile, 'utf8')) as { timedOutAt?: unknown; state?: unknown };
      if (typeof mark.timedOutAt !== 'string' || mark.state !== (await this.identity())) return null;
      const d = new Date(mark.timedOutAt);
      return Number.isNaN(d.getTime()) ? null : d;
    } catch {
      return null;
    }
  }

  async setApplyPending(pending: boolean): Promise<void> {
    if (pending) {
      await mkdir(this.dir, { recursive: true });
      await writeFile(this.applyPendingFile, '');
    } else {
      await rm(this.applyPendingFile, { force: true });
    }
  }

  /**
   * The state this process last read or wrote, with the file's identity at that moment.
   * A watch cycle loads the state each time; re-parsing megabytes of JSON when the file
   * is still the one we wrote is waste. Another process writing it changes mtime/size.
   */
  private memo: { key: string; base: Snapshot | null; remote: RemoteCache | null; generation: string | null } | null = null;

  /** state.bin's and the journal's identities: either one changing means another process wrote. */
  private async fileKey(): Promise<string | null> {
    const id = async (file: string): Promise<string | null> => {
      try {
        const st = await stat(file, { bigint: true });
        return `${st.ino}:${st.size}:${st.mtimeNs}`;
      } catch {
        return null;
      }
    };
    const [bin, journal] = await Promise.all([id(this.file), id(this.journal.file)]);
    return bin === null ? null : `${bin}/${journal ?? '-'}`;
  }

  /**
   * state.bin's and the journal's identities as they are now ("none" without a state.bin):
   * two equal answers mean the base on disk did not change in between.
   */
  async identity(): Promise<string> {
    return (await this.fileKey()) ?? 'none';
  }

  async load(): Promise<SyncState> {
    const key = await this.fileKey();
    if (key !== null && this.memo?.key === key) {
      return { base: this.memo.base, remote: this.memo.remote, applyPending: await this.applyPending() };
    }
    const { generation, ...state } = await this.parse();
    if (key !== null) this.memo = { key, base: state.base, remote: state.remote, generation };
    return state;
  }

  private async parse(): Promise<SyncState & { generation: string | null }> {
    const applyPending = await this.applyPending();
    const empty = { ...EMPTY, applyPending, generation: null };
    let raw: Buffer;
    try {
      raw = await readFile(this.file);
    } catch {
      return empty;
    }
    try {
      const state = await decodeState(raw, this.deploymentId);
      if (state === null) return empty;
      const journal = state.base === null ? null : await this.journal.load(state.generation);
      if (journal !== null && state.base !== null) applyDelta(state.base, journal.delta);
      return { ...state, applyPending };
    } catch {
      return empty;
    }
  }

  /** Saves base and remote cache whole, and drops the journal it takes in (applyPending has its own marker: setApplyPending). */
  async save(state: Pick<SyncState, 'base' | 'remote'>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await ignoreFromGit(path.dirname(this.dir));
    const generation = randomBytes(8).toString('hex');
    await writeFileAtomic(this.file, await encodeState(this.deploymentId, state, generation));
    // A kill here leaves a journal of the former generation: stale, never replayed.
    await this.journal.remove();
    for (const former of FORMER_FILES) await rm(path.join(this.dir, former), { force: true });
    const key = await this.fileKey();
    this.memo = key === null ? null : { key, base: state.base, remote: state.remote, generation };
  }

  /**
   * Persists the base entries at `paths` (absent in `base`: removed) by appending them to
   * the journal, in O(paths). `base` must be the whole base this process holds (the one
   * load() returned, changed in place); it becomes what load() returns. Returns the
   * journal's size: past a bound the caller compacts with save(). Without a state.bin
   * of this process's knowledge (none loaded or saved), it saves whole instead.
   */
  async saveBaseEntries(base: Snapshot, paths: Iterable<string>): Promise<number> {
    const memo = this.memo;
    if (memo === null || memo.generation === null || (await this.fileKey()) !== memo.key) {
      await this.save({ base, remote: (await this.load()).remote });
      return 0;
    }
    const delta = new Map<string, Entry | null>();
    for (const p of paths) delta.set(p, base.get(p) ?? null);
    const bytes = await this.journal.append(memo.generation, delta);
    const key = await this.fileKey();
    this.memo = key === null ? null : { ...memo, key, base };
    return bytes;
  }

  /** The audit trail's lines, oldest first; a line that does not parse (a crash mid-append) is skipped. */
  async readLog(): Promise<Record<string, unknown>[]> {
    let text: string;
    try {
      text = await readFile(path.join(this.dir, 'push.log'), 'utf8');
    } catch {
      return [];
    }
    const out: Record<string, unknown>[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const o: unknown = JSON.parse(line);
        if (o !== null && typeof o === 'object') out.push(o as Record<string, unknown>);
      } catch {
        // skipped
      }
    }
    return out;
  }

  /** One JSON line per push or watch cycle: an audit trail a human can grep. */
  async appendLog(record: Record<string, unknown>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await appendFile(path.join(this.dir, 'push.log'), `${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`);
  }
}

/** Replays journal changes onto a base read from state.bin. */
function applyDelta(base: Snapshot, delta: ReadonlyMap<string, Entry | null>): void {
  for (const [p, e] of delta) {
    if (e === null) base.delete(p);
    else base.set(p, e);
  }
}

export type { Entry };
