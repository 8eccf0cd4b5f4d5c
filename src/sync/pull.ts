/**
 * One pull: read the sides (sides.ts) -> reconcilePull (pure) -> fetch / remove / chmod
 * locally -> save the base. Push's three-way safety in reverse: a local file edited since
 * the last sync is a conflict and never overwritten without `force`.
 *
 * The base is saved from what actually landed (the hash of the bytes written), and, for a
 * whole-tree pull, with the index just read as the remote cache: the next push then finds
 * L = B = R everywhere and costs the one index request.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { setExecutable } from '../local/place.js';
import type { Conflict, Snapshot } from '../model/types.js';
import type { StepFailure } from './execute.js';
import { fetchInto } from './fetch.js';
import { reconcilePull } from './pull-reconcile.js';
import { mergeBase, readSides } from './sides.js';
import { recordBaseChange } from './remote-record.js';
import type { Session } from './session.js';

export interface PullOptions {
  /** Root-relative named paths (scope.ts namedPaths), or null for the whole tree. */
  paths: string[] | null;
  force?: boolean;
  dryRun?: boolean;
  onFile?: (rel: string) => void;
}

export interface PullReport {
  dryRun: boolean;
  fetched: string[];
  removed: string[];
  chmod: { path: string; executable: boolean }[];
  conflicts: Conflict[];
  /** With force: conflicts where the remote side replaced a local edit. */
  overridden: Conflict[];
  /** Local edits a pull leaves for push. */
  localChanges: string[];
  failures: StepFailure[];
  bytes: number;
  warnings: string[];
  durationMs: number;
}

export async function pull(session: Session, opts: PullOptions): Promise<PullReport> {
  const lock = opts.dryRun ? null : await session.hold('pull');
  try {
    return await pullUnderLock(session, opts);
  } finally {
    await lock?.release();
  }
}

async function pullUnderLock(session: Session, opts: PullOptions): Promise<PullReport> {
  const started = Date.now();
  const { config, client, matcher, store } = session;
  const sides = await readSides(session, opts.paths);
  const rec = reconcilePull(sides.base, sides.local, sides.remote, { force: opts.force ?? false });
  const report: PullReport = {
    dryRun: opts.dryRun ?? false,
    fetched: rec.fetch.map((e) => e.path),
    removed: rec.remove,
    chmod: rec.chmod,
    conflicts: rec.conflicts,
    overridden: rec.overridden,
    localChanges: rec.localChanges,
    failures: [],
    bytes: 0,
    warnings: sides.warnings,
    durationMs: 0,
  };
  if (opts.dryRun) {
    report.durationMs = Date.now() - started;
    return report;
  }

  const fetched = await fetchInto(client, config.root, rec.fetch, opts.onFile);
  report.failures.push(...fetched.failures);
  report.bytes = fetched.bytes;
  for (const rel of rec.remove) {
    try {
      await rm(path.join(config.root, rel), { force: true });
    } catch (err) {
      report.failures.push({ path: rel, error: (err as Error).message });
    }
  }
  for (const c of rec.chmod) {
    try {
      await setExecutable(path.join(config.root, c.path), c.executable);
    } catch (err) {
      report.failures.push({ path: c.path, error: (err as Error).message });
    }
  }

  // What failed keeps its old base entry: the next status still shows it as remote drift.
  const failed = new Set(report.failures.map((f) => f.path));
  const scoped: Snapshot = new Map();
  const old = sides.base;
  for (const [k, v] of rec.nextBase) if (!failed.has(k)) scoped.set(k, fetched.placed.get(k) ?? v);
  for (const k of failed) {
    const b = old?.get(k);
    if (b) scoped.set(k, b);
    else scoped.delete(k);
  }
  const base = mergeBase(sides.state.base, sides.scopes, scoped, (rel) => matcher.ignores(rel, false));
  const r = sides.remoteRead;
  await store.save({
    base,
    remote: r && r.leftovers.length === 0 ? { digest: r.digest, requestKey: r.requestKey, snapshot: r.snapshot, symlinks: r.symlinks, leftovers: [], record: r.record } : sides.state.remote,
  });
  // Other machines learn that this base is hostsync's now (a pull took the deployment's files).
  const unrecorded = await recordBaseChange(session, 'pull', sides.state.base, base);
  if (unrecorded !== null) report.warnings.push(unrecorded);
  report.durationMs = Date.now() - started;
  await store.appendLog({
    command: 'pull',
    fetched: report.fetched.length - fetched.failures.length,
    removed: report.removed.length,
    conflicts: report.conflicts.length,
    failures: report.failures.length,
    requests: client.stats().total,
    ms: report.durationMs,
  });
  return report;
}
