/**
 * The three sides a two-way command compares (base, local, remote), read for the whole
 * tree or only for the paths the user named. Naming paths is what keeps `pull x` and
 * `diff x` cheap on a huge tree: a scoped files.index per path instead of the whole
 * remote, and a local walk of those paths only.
 */
import { rescanPaths, scanTree } from '../../local/scan.js';
import { WALK_SLICE_MS } from '../../local/tunables.js';
import type { Snapshot } from '../../model/types.js';
import type { SyncState } from '../../state/store.js';
import { readRemoteBeside, readRemotePaths, type RemoteRead } from '../remote-read/remote-read.js';
import { inScope, matcherFor, restrict, scopedMatcher, within } from '../scope.js';
import type { Session } from '../session.js';
import { refuseWhileUndoPending } from '../undo-guard.js';
import { foldUnverified } from '../unverified-fold.js';
import { platformView } from '../core/platform-view.js';

export interface Sides {
  /** The named paths, or null for the whole tree. */
  scopes: string[] | null;
  state: SyncState;
  /** The base restricted to the scopes. */
  base: Snapshot | null;
  local: Snapshot;
  remote: Snapshot;
  /** The whole-tree read (its digest refreshes the cache); null when scoped. */
  remoteRead: RemoteRead | null;
  warnings: string[];
  /** Unverified watch writes this read covered (folded into the base): settleUnverified once a base is saved. */
  unverified: string[];
  /** Local paths passed over as unknown (links, special or unreadable files; a folder ends in "/"). */
  skipped: string[];
  /** hostsync's own temp files the local scan met (ScanResult.temps): a command under the lock may remove them. */
  temps: string[];
}

/** Drops the entries at or below a path the local scan could not read: unknown, never "absent". */
function withoutSkipped(snap: Snapshot, skipped: readonly string[]): Snapshot {
  if (skipped.length === 0) return snap;
  const prefixes = skipped.map((s) => s.replace(/\/$/, ''));
  const out: Snapshot = new Map();
  for (const [k, v] of snap) if (!prefixes.some((p) => within(k, p))) out.set(k, v);
  return out;
}

/** The whole local tree found some other way than a scan (a running watch's answer, sync/watch-cycle/watched-local.ts). */
export interface KnownLocal {
  snapshot: Snapshot;
  skipped: string[];
  warnings: string[];
}

export async function readSides(session: Session, scopes: string[] | null, command = 'this command', known?: KnownLocal): Promise<Sides> {
  const { config, matcher, cache, store, client } = session;
  await refuseWhileUndoPending(session, command);
  const loaded = await store.load();
  if (scopes === null || scopes.includes('')) {
    // Asked before the scan, answered while it walks and hashes (readRemoteBeside).
    const scanned = async (): Promise<KnownLocal & { temps: string[] }> => (known ? { ...known, temps: [] } : scanTree({ root: config.root, matcher, cache, walkSliceMs: WALK_SLICE_MS }));
    const beside = readRemoteBeside(client, matcher, loaded.remote, scanned, (t) => t.snapshot, loaded.remote?.snapshot, loaded.base);
    const scan = await beside.local;
    if (!known) await cache.save();
    const remoteRead = await beside.read;
    const folded = await foldUnverified(session, loaded.base, remoteRead.snapshot);
    const state = { ...loaded, base: folded.base };
    return {
      scopes: null,
      state,
      unverified: folded.covered,
      base: state.base,
      local: platformView(withoutSkipped(scan.snapshot, scan.skipped), state.base, remoteRead.snapshot, session.platform),
      remote: withoutSkipped(remoteRead.snapshot, scan.skipped),
      remoteRead,
      warnings: [...scan.warnings],
      temps: scan.temps,
      skipped: scan.skipped,
    };
  }
  const scan = await rescanPaths({ root: config.root, matcher: scopedMatcher(matcher, scopes), cache }, new Map(), scopes);
  const remote = await readRemotePaths(client, scopes, (p) => matcherFor(matcher, p));
  const folded = await foldUnverified(session, loaded.base, remote.snapshot, (p) => inScope(p, scopes));
  const state = { ...loaded, base: folded.base };
  const base = state.base ? restrict(state.base, scopes) : null;
  return {
    scopes,
    state,
    unverified: folded.covered,
    base,
    local: platformView(withoutSkipped(scan.snapshot, scan.skipped), base, remote.snapshot, session.platform),
    remote: withoutSkipped(remote.snapshot, scan.skipped),
    remoteRead: null,
    warnings: [...scan.warnings],
    temps: scan.temps,
    skipped: scan.skipped,
  };
}

/**
 * The base to save after a command settled some paths: the old base with the scoped
 * part replaced by `scoped`. Paths the ignore rules exclude never enter the base (a push
 * never sees them), even when a named pull brought them down.
 */
export function mergeBase(old: Snapshot | null, scopes: string[] | null, scoped: Snapshot, ignores: (rel: string) => boolean): Snapshot {
  const out: Snapshot = new Map();
  if (old && scopes !== null) for (const [k, v] of old) if (!scopes.some((s) => within(k, s))) out.set(k, v);
  for (const [k, v] of scoped) if (!ignores(k)) out.set(k, v);
  return out;
}
