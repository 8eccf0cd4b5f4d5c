import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Entry, Snapshot } from '../model/types.js';
import { writeFileAtomic } from '../local/atomic-write.js';
import { decodeState, encodeState } from './state-file.js';

/**
 * What hostsync remembers per deployment, in `.hostsync/<deployment>/state.bin`:
 * - base: what the last successful sync left on the remote (the B of the three-way merge);
 * - remote: the last full files.index we read, with its digest, so an unchanged remote
 *   (`{unchanged: true}`) can be answered from here in ONE request.
 * Invariant: base is only written after the pushed files were verified against a fresh index.
 * A state that is missing, corrupt, or of another version is treated as absent: rebuilt
 * from the remote, never trusted, and never a reason to delete anything.
 * The API key is never part of it.
 */
export interface RemoteCache {
  digest: string;
  /** Identifies the ignore list and hashMaxBytes the digest was computed with. */
  requestKey: string;
  snapshot: Snapshot;
  symlinks: string[];
  leftovers: string[];
}

export interface SyncState {
  base: Snapshot | null;
  remote: RemoteCache | null;
  /**
   * Set before a push transfers anything, cleared when deployments.apply has answered:
   * a push killed (or failing) in between leaves it set, so the next push applies even
   * when it finds nothing left to transfer.
   */
  applyPending: boolean;
}

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
  constructor(
    readonly dir: string,
    readonly deploymentId: string,
  ) {}

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
  private memo: { key: string; base: Snapshot | null; remote: RemoteCache | null } | null = null;

  private async fileKey(): Promise<string | null> {
    try {
      const st = await stat(this.file, { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return null;
    }
  }

  async load(): Promise<SyncState> {
    const key = await this.fileKey();
    if (key !== null && this.memo?.key === key) {
      return { base: this.memo.base, remote: this.memo.remote, applyPending: await this.applyPending() };
    }
    const state = await this.parse();
    if (key !== null) this.memo = { key, base: state.base, remote: state.remote };
    return state;
  }

  private async parse(): Promise<SyncState> {
    const applyPending = await this.applyPending();
    let raw: Buffer;
    try {
      raw = await readFile(this.file);
    } catch {
      return { ...EMPTY, applyPending };
    }
    try {
      const state = await decodeState(raw, this.deploymentId);
      return state ? { ...state, applyPending } : { ...EMPTY, applyPending };
    } catch {
      return { ...EMPTY, applyPending };
    }
  }

  /** Saves base and remote cache (applyPending has its own marker: setApplyPending). */
  async save(state: Pick<SyncState, 'base' | 'remote'>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await ignoreFromGit(path.dirname(this.dir));
    await writeFileAtomic(this.file, await encodeState(this.deploymentId, state));
    for (const former of FORMER_FILES) await rm(path.join(this.dir, former), { force: true });
    const key = await this.fileKey();
    this.memo = key === null ? null : { key, base: state.base, remote: state.remote };
  }

  /** One JSON line per push or watch cycle: an audit trail a human can grep. */
  async appendLog(record: Record<string, unknown>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await appendFile(path.join(this.dir, 'push.log'), `${JSON.stringify({ time: new Date().toISOString(), ...record })}\n`);
  }
}

export type { Entry };
