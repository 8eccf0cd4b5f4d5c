import { appendFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Entry, Snapshot } from '../model/types.js';
import { writeFileAtomic } from '../local/atomic-write.js';

/**
 * What hostsync remembers per deployment, in `.hostsync/<deployment>/state.json`:
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

const VERSION = 2;
/** Compact on disk: [hash, size, executable]. */
type PackedEntry = [string | null, number, 0 | 1];

interface StateFile {
  version: number;
  deploymentId: string;
  savedAt: string;
  base: Record<string, PackedEntry> | null;
  remote: { digest: string; requestKey: string; entries: Record<string, PackedEntry>; symlinks: string[]; leftovers: string[] } | null;
}

function pack(snapshot: Snapshot): Record<string, PackedEntry> {
  const out: Record<string, PackedEntry> = {};
  for (const [p, e] of [...snapshot].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out[p] = [e.hash, e.size, e.executable ? 1 : 0];
  }
  return out;
}

function unpack(packed: Record<string, PackedEntry>): Snapshot {
  const out: Snapshot = new Map();
  for (const [p, v] of Object.entries(packed)) {
    if (!Array.isArray(v) || v.length !== 3) throw new Error('bad entry');
    const [hash, size, exec] = v;
    if ((hash !== null && typeof hash !== 'string') || typeof size !== 'number') throw new Error('bad entry');
    out.set(p, { path: p, hash, size, executable: exec === 1 });
  }
  return out;
}

/**
 * `.hostsync/` keeps itself out of git (as a virtualenv does), so `git stash` or a branch
 * switch never rewinds the base to an older one and fakes remote drift.
 */
async function ignoreFromGit(stateRoot: string): Promise<void> {
  await writeFile(path.join(stateRoot, '.gitignore'), '*\n', { flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
}

function strings(v: unknown): string[] {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new Error('bad list');
  return v as string[];
}

export class StateStore {
  constructor(
    readonly dir: string,
    readonly deploymentId: string,
  ) {}

  get file(): string {
    return path.join(this.dir, 'state.json');
  }

  /** A marker file, not part of state.json: it flips twice per push and must stay cheap. */
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
    let raw: string;
    try {
      raw = await readFile(this.file, 'utf8');
    } catch {
      return { ...EMPTY, applyPending: await this.applyPending() };
    }
    try {
      const parsed = JSON.parse(raw) as StateFile;
      if (parsed.version !== VERSION || parsed.deploymentId !== this.deploymentId) return { ...EMPTY, applyPending: await this.applyPending() };
      const r = parsed.remote;
      return {
        base: parsed.base ? unpack(parsed.base) : null,
        remote: r
          ? { digest: r.digest, requestKey: r.requestKey, snapshot: unpack(r.entries), symlinks: strings(r.symlinks), leftovers: strings(r.leftovers) }
          : null,
        applyPending: await this.applyPending(),
      };
    } catch {
      return { ...EMPTY, applyPending: await this.applyPending() };
    }
  }

  /** Saves base and remote cache (applyPending has its own marker: setApplyPending). */
  async save(state: Pick<SyncState, 'base' | 'remote'>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await ignoreFromGit(path.dirname(this.dir));
    const file: StateFile = {
      version: VERSION,
      deploymentId: this.deploymentId,
      savedAt: new Date().toISOString(),
      base: state.base ? pack(state.base) : null,
      remote: state.remote
        ? {
            digest: state.remote.digest,
            requestKey: state.remote.requestKey,
            entries: pack(state.remote.snapshot),
            symlinks: state.remote.symlinks,
            leftovers: state.remote.leftovers,
          }
        : null,
    };
    await writeFileAtomic(this.file, JSON.stringify(file));
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
