/**
 * One pull: read the sides (sides.ts) -> reconcilePull (pure) -> fetch / remove / chmod
 * locally -> save the base. Push's three-way safety in reverse: a local file edited since
 * the last sync is a conflict and never overwritten without `force`.
 *
 * The base is saved from what actually landed (the hash of the bytes written), and, for a
 * whole-tree pull, with the index just read as the remote cache: the next push then finds
 * L = B = R everywhere and costs the one index request.
 */
import { removeFile, setExecutable } from '../../local/place.js';
import { EditedMeanwhileError } from '../../local/recheck.js';
import type { Conflict, Snapshot } from '../../model/types.js';
import type { StepFailure } from '../push/execute.js';
import { configFiles, heldLine, holdConfigChanges } from './config-hold.js';
import { fetchInto } from './fetch.js';
import { reconcilePull } from '../core/pull-reconcile.js';
import { remoteCacheOf } from '../remote-read/remote-read.js';
import { removeLeftTemps } from '../temp-cleanup.js';
import { pullOnDisk } from './pull-disk.js';
import { mergeBase, readSides } from './sides.js';
import { settleUnverified } from '../unverified-fold.js';
import { recordBaseChange } from '../record/remote-record.js';
import type { Session } from '../session.js';
import { keepLeftBase, leaveOwnedForPull } from '../core/remote-owned.js';

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
  /** hostsync's own configuration files the deployment changed, left alone (config-hold.ts): a pull that names one takes it. */
  held: string[];
  failures: StepFailure[];
  bytes: number;
  warnings: string[];
  /** Local paths the scan passed over (links, special files): never written, so never settled. */
  skipped: string[];
  /** The app's data (hostsync.json "remoteOwned") this pull did not name: left as it is here; `pull PATH` brings one down. */
  leftOwned: string[];
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
  const sides = await readSides(session, opts.paths, 'a pull');
  // The app's data comes down only by name: a whole-tree pull does not compare it at all.
  const { trees, left } = leaveOwnedForPull(sides, session.remoteOwned, opts.paths);
  const { rec, held } = holdConfigChanges(
    reconcilePull(trees.base, trees.local, trees.remote, { force: opts.force ?? false }),
    sides.base,
    configFiles(config),
    opts.paths,
  );
  keepLeftBase(rec.nextBase, sides.base, left);
  const onDisk = pullOnDisk(rec, sides.local, sides.remote, session.platform, config.root);
  const report: PullReport = {
    dryRun: opts.dryRun ?? false,
    fetched: onDisk.fetch.map((e) => e.path),
    removed: rec.remove,
    chmod: rec.chmod,
    conflicts: rec.conflicts,
    overridden: rec.overridden,
    localChanges: rec.localChanges,
    held: held.map((h) => h.path),
    failures: [...onDisk.unrepresentable],
    bytes: 0,
    warnings: [...sides.warnings, ...held.map(heldLine)],
    skipped: sides.skipped,
    leftOwned: left.filter((p) => sides.remote.has(p)),
    durationMs: 0,
  };
  if (opts.dryRun) {
    report.durationMs = Date.now() - started;
    return report;
  }
  const cleaned = await removeLeftTemps(config.root, sides.temps);

  // Each target is re-checked against this scan right before it is replaced or removed.
  // Disk names may differ from the wire's (NFD on a Mac): the re-check stats the disk name.
  const asScanned = (rel: string) => ({ rel: onDisk.disk(rel), entry: sides.local.get(rel), cache: session.cache });
  /** Local files that changed while the pull ran: kept, and conflicts like any other. */
  const raced = new Set<string>();
  // Removals first: a remote file that became a folder needs the file gone before the folder's files land,
  // and on a case-insensitive disk a case-only rename's old name must go before the new one is written.
  for (const rel of rec.remove) {
    try {
      await removeFile(config.root, onDisk.disk(rel), asScanned(rel));
    } catch (err) {
      if (err instanceof EditedMeanwhileError) raced.add(rel);
      else report.failures.push({ path: rel, error: (err as Error).message });
    }
  }
  const fetched = await fetchInto(client, config.root, onDisk.fetch, { ...(opts.onFile ? { onFile: opts.onFile } : {}), local: sides.local, cache: session.cache });
  report.failures.push(...fetched.failures);
  for (const rel of fetched.raced) raced.add(rel);
  report.bytes = fetched.bytes;
  for (const c of rec.chmod) {
    try {
      await setExecutable(config.root, onDisk.disk(c.path), c.executable);
    } catch (err) {
      report.failures.push({ path: c.path, error: (err as Error).message });
    }
  }
  if (raced.size > 0) {
    const remoteOf = new Map(rec.fetch.map((e) => [e.path, e]));
    report.fetched = report.fetched.filter((p) => !raced.has(p));
    report.removed = report.removed.filter((p) => !raced.has(p));
    report.overridden = report.overridden.filter((c) => !raced.has(c.path));
    for (const rel of [...raced].sort()) {
      const remote = remoteOf.get(rel) ?? null;
      report.conflicts.push({ path: rel, reason: remote ? 'both-modified' : 'modify-delete', local: null, remote, base: sides.base?.get(rel) ?? null });
      report.warnings.push(`${rel} changed here while the pull ran: your file was kept (a conflict)`);
    }
    report.conflicts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  // What failed (or raced) keeps its old base entry: the next status still shows it as remote drift, or as a conflict.
  const failed = new Set([...report.failures.map((f) => f.path), ...raced]);
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
    remote: (r && remoteCacheOf(r)) ?? sides.state.remote,
  });
  await settleUnverified(session, sides.unverified);
  // Other machines learn that this base is hostsync's now (a pull took the deployment's files).
  const unrecorded = await recordBaseChange(session, 'pull', sides.state.base, base, sides.remoteRead);
  if (unrecorded !== null) report.warnings.push(unrecorded);
  report.durationMs = Date.now() - started;
  await store.appendLog({
    command: 'pull',
    fetched: report.fetched.length - fetched.failures.length,
    raced: raced.size,
    tempsRemoved: cleaned.length,
    removed: report.removed.length,
    conflicts: report.conflicts.length,
    failures: report.failures.length,
    requests: client.stats().total,
    ms: report.durationMs,
  });
  return report;
}
