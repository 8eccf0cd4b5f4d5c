import { GITIGNORED_NAMED, IDLE_CHECK_WAIT_SECONDS, MAX_PLAN_ROUNDS } from '../tunables.js';
import { refusal } from '../../errors.js';
import { ignoredBy, loadGitignore } from '../../local/gitignore.js';
import { scanTree } from '../../local/scan.js';
import { applyRequestFor, awaitHealth } from '../apply/apply.js';
import { applyOrRefusal, applyScopeKnown, checkApplyScope } from '../apply/apply-scope.js';
import { installBeforeApply, installFailureHealth } from '../apply/install-on-change.js';
import { checkRequests, executePlan, overwrittenWarning, type ProgressFn } from './execute.js';
import { keptBitsNote } from '../core/platform-view.js';
import type { Decision } from '../core/decide.js';
import { expectedFiles, readRemote, readRemoteBeside, readRemoteScope, remoteCacheOf, type RemoteRead } from '../remote-read/remote-read.js';
import type { Session } from '../session.js';
import { removeLeftTemps } from '../temp-cleanup.js';
import { verify } from '../core/verify.js';
import { assertProjectThere, markProject, type ProjectMark } from './vanished.js';
import { refuseWhileUndoPending } from '../undo-guard.js';
import { settleUnverified } from '../unverified-fold.js';
import { finishPush, plannedCopies, recordPush, type CopyPolicy } from './push-journal.js';
import { copyFolder } from './safety-copy.js';
import { changedPaths } from '../../model/change.js';
import { snapshotsEqual } from '../../model/snapshot.js';
import type { Change, Snapshot } from '../../model/types.js';
import { commitBatch, copyRead, parsedRecord, readRecord, type RecordRead } from '../record/remote-record.js';
import { batchIds, lastHeaderOf, type BatchKind, type BatchPath } from '../../state/base-record.js';
import { loadPendingRecord, savePendingRecord } from '../../state/record-pending.js';
import { RECORD_CAS_ATTEMPTS } from '../tunables.js';
import { gitClean, gitHead, type GitHead } from '../../local/git.js';
import { DEPLOYS } from '../core/copy-position.js';
import { batchStamp } from '../record/copy-stamp.js';
import { planPush, type PlanInput, type PushPlan, type Retry } from './push-plan.js';
import { coveredBy, knownRead, mayRecordAhead, plannableCopy, pushBatch, type Ahead } from './record-ahead.js';
import { WALK_SLICE_MS } from '../../local/tunables.js';
import { emptyPushReport, logLineOf, type PushReport } from './push-report.js';

export { emptyPushReport, logLineOf, type ChangeCounts, type PushReport } from './push-report.js';

export interface PushOptions {
  dryRun?: boolean;
  force?: boolean;
  mirror?: boolean;
  noApply?: boolean;
  allowMassDelete?: boolean;
  /**
   * Server-side copies of what the push replaces (safety-copy.ts). Default 'safety': the
   * copy a --force or --mirror push takes of content the base does not hold. 'all' adds
   * the undo copy of files an upload overwrites (hostsync push); 'none' is --no-backup.
   */
  copies?: CopyPolicy;
  onProgress?: ProgressFn;
  /** Watch mode hands in its incrementally maintained local snapshot instead of a full scan. */
  local?: Snapshot;
  /** With `local`: the paths its scan skipped (see ScanResult.skipped). */
  skipped?: readonly string[];
  /**
   * With nothing to apply, still read the deployment's state (one deployments.diagnose)
   * and judge its health, so a push to a crashed app never reports green. `hostsync
   * push` sets it; watch's cycles and drift polls do not (they judge after each apply).
   */
  checkIdle?: boolean;
  /**
   * Watch mode's mass-delete guard: `recentDeletes` (deletions it made within its window)
   * count with this push's. A tripped guard does not refuse the push: the deletions are held
   * (left on the deployment and in the base, reported in `heldDeletes`) and everything else
   * is pushed. `allowMassDelete` lets them through.
   */
  holdMassDelete?: { recentDeletes: number };
  /**
   * A first push with hostsync.json "gitignore" undecided meets files the root .gitignore
   * excludes: asked with them (sorted) whether to keep them off (true), push them (false),
   * or, answering null (no terminal), push them with a warning. Without it: the warning.
   */
  onGitignored?: (paths: string[]) => Promise<boolean | null>;
  /**
   * The project as the caller found it (watch: at its start). Default: taken when this push
   * starts. A push that would delete anything first checks the project is still there
   * (vanished.ts): a root gone, replaced or stripped of its hostsync.json is refused.
   */
  project?: ProjectMark;
  /**
   * The deployment's start settings or size were changed just before this push
   * (app/deploy-settings.ts): its apply restarts the app, whatever the files changed.
   */
  settingsChanged?: boolean;
}

/** The local side of a push: watch mode's incrementally maintained snapshot, or a fresh scan. */
async function localTree(session: Session, opts: PushOptions, base: Snapshot | null): Promise<{ scanned: Snapshot; skipped: readonly string[]; warnings: string[]; temps: string[] }> {
  if (opts.local) return { scanned: opts.local, skipped: opts.skipped ?? [], warnings: [], temps: [] };
  opts.onProgress?.({ phase: 'scan', done: 0, total: 0 });
  // Checked against the base as it is found: an unchanged tree makes no entries (ScanOptions.expect).
  const scan = await scanTree({ root: session.config.root, matcher: session.matcher, cache: session.cache, expect: base, walkSliceMs: WALK_SLICE_MS });
  await session.cache.save();
  return { scanned: scan.snapshot, skipped: scan.skipped, warnings: [...scan.warnings], temps: scan.temps };
}

/**
 * The first push of a project whose hostsync.json leaves "gitignore" undecided: files the
 * root .gitignore excludes (a config.local.json with a password, say) are named before
 * anything is sent. Kept off when the user says so; otherwise pushed, with a warning.
 */
async function firstPushGitignore(session: Session, scanned: Snapshot, opts: PushOptions, warnings: string[]): Promise<Snapshot> {
  const rules = await loadGitignore(session.config.root);
  if (rules === null) return scanned;
  const listed = ignoredBy(rules, scanned.keys());
  if (listed.length === 0) return scanned;
  const keepOff = opts.dryRun || !opts.onGitignored ? null : await opts.onGitignored(listed);
  if (keepOff === true) {
    const kept = new Map(scanned);
    for (const p of listed) kept.delete(p);
    return kept;
  }
  if (keepOff === null) {
    const shown = listed.slice(0, GITIGNORED_NAMED).join(', ') + (listed.length > GITIGNORED_NAMED ? `, +${listed.length - GITIGNORED_NAMED} more` : '');
    warnings.push(
      `${listed.length} file(s) that .gitignore excludes are pushed (${shown}): set "gitignore": true in hostsync.json to keep them off the deployment, or false to push them without this warning`,
    );
  }
  return scanned;
}

/** What the transfer rounds did, for verify(). */
interface Transfer {
  intended: Change[];
  sent: Map<string, string>;
  vanished: Set<string>;
  /** Held back because the deployment changed them during the push (ExecResult.held). */
  held: Set<string>;
  /** The remote changed since `remote` was read. */
  stale: boolean;
  remote: RemoteRead;
  decision: Decision;
}

/**
 * Executes the plan, re-reading the remote and re-deciding after an unknown outcome: the
 * three-way merge treats what already landed as L = R, so a re-plan never repeats it.
 */
async function transfer(
  session: Session,
  opts: PushOptions,
  report: PushReport,
  /** `exact`: nothing was asked between `remote`'s read and now (see ExecuteOptions.exact). */
  first: { remote: RemoteRead; decision: Decision; fresh: boolean; exact: boolean },
  redecide: (remote: RemoteRead) => Decision,
): Promise<Transfer> {
  const { client, config, matcher } = session;
  let { remote, decision } = first;
  const out = { intended: [] as Change[], sent: new Map<string, string>(), vanished: new Set<string>(), held: new Set<string>(), stale: false };
  // A forced push overwrites remote edits by request: no re-check before its writes.
  // A re-check whose scope is the root (a later archive part of a large push) completes a
  // truncated read by groups of the trees we know, not folder by folder: read at call time,
  // so a later round's remote and local count.
  const recheck = opts.force ? {} : { recheck: (paths: string[]) => readRemoteScope(client, matcher, paths, expectedFiles(decision.local, remote.snapshot)) };
  for (let round = 0; round < MAX_PLAN_ROUNDS; round++) {
    // Was `remote` read by the last request? (Then the first write needs no re-check.)
    let fresh = round > 0 || first.fresh;
    if (remote.leftovers.length > 0) {
      await client.files.delete(remote.leftovers);
      out.stale = true;
      fresh = false;
    }
    if (decision.plan.steps.length === 0) break;
    out.intended.push(...decision.rec.changes);
    const result = await executePlan(decision.plan, {
      client,
      root: config.root,
      remote: remote.snapshot,
      ...recheck,
      fresh,
      exact: round === 0 && first.exact,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    report.failures.push(...result.failures);
    report.overwritten.push(...result.overwritten);
    for (const p of result.held) out.held.add(p);
    for (const [p, h] of result.sent) out.sent.set(p, h);
    for (const p of result.vanished) out.vanished.add(p);
    out.stale = true;
    if (!result.outcomeUnknown) break;
    remote = await readRemote(client, matcher, null, expectedFiles(decision.local, remote.snapshot));
    decision = redecide(remote);
    out.stale = false;
    if (round === MAX_PLAN_ROUNDS - 1 && decision.plan.steps.length > 0) {
      report.failures.push({ path: '*', error: 'the deployment kept answering with unknown outcomes; run the push again' });
    }
  }
  return { ...out, remote, decision };
}

/**
 * One push: scan -> read remote -> decide (decide.ts, pure) -> mass-delete guard ->
 * transfer -> verifying read -> verify (verify.ts, pure) -> save base -> apply. The
 * decisions are pure; this file holds the edges that act on them. The base is saved only from a fresh index taken after the
 * transfer, so a push killed at any instant leaves the old base, from which the next
 * push converges (a file that already landed then reads as L = R and is adopted), and
 * an apply-pending marker, so the next push applies even if nothing is left to send.
 */
export async function push(session: Session, opts: PushOptions = {}): Promise<PushReport> {
  // A dry run changes nothing, so it needs no lock (and `status` works beside a watch).
  const lock = opts.dryRun ? null : await session.hold('push');
  try {
    return await pushUnderLock(session, opts);
  } finally {
    await lock?.release();
  }
}

async function pushUnderLock(session: Session, opts: PushOptions, retry?: Retry): Promise<PushReport> {
  const started = Date.now();
  const { config, client, matcher, store } = session;
  await refuseWhileUndoPending(session, opts.dryRun ? 'status' : 'a push');
  const state = await store.load();
  /** The base as state.bin holds it: the fold below may take unverified writes into `state.base`, not into this. */
  const savedBase = state.base;
  // Taken before the scan: a project that goes during the scan reads as its deletion.
  const project = opts.dryRun ? null : (opts.project ?? (await markProject(config)));
  const force = opts.force ?? false;
  const mirror = opts.mirror ?? false;
  let tree: Retry['tree'];
  let temps: string[] = [];
  // The index is asked before the scan starts (it has what it needs: the cached digest), so
  // its answer comes in while the scan hashes; its grouped reads wait for the scan's tree.
  let remoteBeside: Promise<RemoteRead> | null = null;
  // The remote as last read whole: a running watch's shelf (a status it works out), else state.bin's.
  const known = session.remoteShelf?.get() ?? state.remote;
  // A copy that may record ahead (record-ahead.ts) asks the index with its batch, after the scan.
  const last = opts.dryRun || retry || force || mirror || state.base === null ? null : await knownRead(session, known);
  // git's answer comes while the scan runs (a watch's cycle never asks: its batches ask their own).
  const head: Promise<GitHead | null> | null = opts.local ? null : gitHead(config.root);
  // Whether the tree is its commit, for the batch's stamp: a `git status` on the other core
  // while this one scans (at 100k files ~0.4 s, which would otherwise follow the plan).
  const clean: Promise<boolean | null> | null = head === null || opts.dryRun ? null : gitClean(config.root);
  if (retry) tree = retry.tree;
  else {
    let fresh;
    if (last !== null) fresh = await localTree(session, opts, state.base);
    else {
      const beside = readRemoteBeside(client, matcher, known, () => localTree(session, opts, state.base), (t) => t.scanned, known?.snapshot, state.base);
      remoteBeside = beside.read;
      fresh = await beside.local;
    }
    tree = fresh;
    temps = fresh.temps;
  }
  // Temp files a killed pull left here: never sent (ignored), and removed while we hold the lock.
  if (!opts.dryRun && temps.length > 0) await removeLeftTemps(config.root, temps);
  const { skipped, warnings } = tree;
  const scanned = retry ? tree.scanned : state.base === null && config.gitignore === null ? await firstPushGitignore(session, tree.scanned, opts, warnings) : tree.scanned;
  // What a retry starts from: the scan's warnings, not this attempt's.
  const scanWarnings = [...warnings];
  const planInput: PlanInput = {
    session, stateBase: state.base, scanned, skipped, head, retry, force, mirror, allowMassDelete: opts.allowMassDelete ?? false,
    ...(opts.holdMassDelete ? { holdMassDelete: opts.holdMassDelete } : {}),
  };
  const copyOptions = { destructive: force || mirror, copies: opts.copies ?? 'safety' } as const;
  // The undo copy's folder, chosen before the record's write so the batch names it: a rollback on any machine finds the copy.
  const undoNeeded = (d: Decision, r: Snapshot, b: Snapshot | null): boolean => plannedCopies(d.rec.changes, d.plan, r, b, copyOptions).undo.length > 0;
  // The batch waiting from a watch's cycles goes with this push's (state/record-pending.ts).
  const unrecorded = opts.dryRun ? new Map<string, BatchPath>() : await loadPendingRecord(session.stateDir);
  const stampOf = async (batch: readonly BatchPath[], read: RecordRead) =>
    batchStamp(config, head === null ? null : await head, { paths: read.text === null ? null : batch.map((p) => p.path), ...(clean ? { clean } : {}) });

  opts.onProgress?.({ phase: 'index', done: 0, total: 1 });
  const readNow = (): Promise<RemoteRead> => readRemote(client, matcher, known, expectedFiles(scanned, known?.snapshot, state.base));
  let ahead: Ahead | null = null;
  let aheadLost: string | null = null;
  let remote: RemoteRead;
  let spec: PushPlan | null = null;
  if (last !== null) {
    spec = await planPush(planInput, last.remote, last.record);
    const batch = pushBatch(spec.base, spec.guarded.decision.rec.nextBase, unrecorded);
    if (mayRecordAhead(spec, batch)) {
      // Checked before anything is written, as below: the key may apply, the project is there.
      if (!opts.noApply) await checkApplyScope(session);
      if (project !== null && spec.guarded.decision.rec.changes.some((c) => c.kind === 'delete')) await assertProjectThere(project);
      const reading = readNow();
      reading.catch(() => undefined);
      const copy = undoNeeded(spec.guarded.decision, last.remote.snapshot, spec.base) ? copyFolder() : undefined;
      const committed = await commitBatch(session, last.record, 'push', batch, () => spec!.guarded.decision.rec.nextBase.values(), await stampOf(batch, last.record), copy !== undefined ? { copy } : {});
      if (committed.ok) ahead = { id: committed.id, batch, record: last.record, ...(copy !== undefined ? { copy } : {}) };
      else aheadLost = committed.id;
      remote = await reading;
    } else remote = await readNow();
  } else remote = await (remoteBeside ?? readNow());
  if (session.remoteShelf !== null && !remote.fromCache) session.remoteShelf.set(remoteCacheOf(remote));
  // An archive a killed push left behind is served by static and PHP runtimes, with the
  // whole project in it: it goes first, before any guard or conflict can stop this push.
  let cleaned = false;
  if (!opts.dryRun && remote.leftovers.length > 0) {
    await client.files.delete(remote.leftovers);
    remote = { ...remote, leftovers: [] };
    cleaned = true;
  }
  // The base record: what hostsync (on any machine) last left on the deployment. Recorded
  // ahead, the copy planned with is it (the batch on top is this push's own).
  // A push holds the lock: what it reads becomes this machine's copy (a dry run keeps nothing).
  const read = ahead !== null ? ahead.record : remote.fromCache && last !== null && aheadLost === null ? last.record : await readRecord(session, remote, !opts.dryRun);
  // A lost compare-and-swap whose answer was lost after it landed left our batch there: ours, not another machine's.
  const record = aheadLost !== null ? { ...read, own: [...read.own, aheadLost] } : read;
  if (record.warning !== null) warnings.push(record.warning);
  // The plan made on the last read is this read's plan when the index said nothing changed.
  const planned = spec !== null && remote.fromCache && aheadLost === null ? spec : await planPush(planInput, remote, record);
  const { folded, position, positionRefused, base, redecide } = planned;
  const { decision: first, guard, held: heldDeletes } = planned.guarded;
  const bitsNote = keptBitsNote(first.local, session.platform, session);
  if (bitsNote !== null) warnings.push(bitsNote);
  if (project !== null && first.rec.changes.some((c) => c.kind === 'delete')) await assertProjectThere(project);
  if (guard.refuse && !opts.allowMassDelete && !opts.dryRun && heldDeletes.length === 0) {
    throw refusal(
      `refusing to delete ${guard.deletes} of ${guard.tracked} tracked files on the deployment (wrong --dir, or an emptied checkout?): check the directory, or pass --allow-mass-delete`,
    );
  }
  // The base record's batch: the paths whose base this push changes (none: no request), with
  // what a watch's cycles wrote and have not recorded yet.
  const batch = pushBatch(base, first.rec.nextBase, unrecorded);
  const undo = undoNeeded(first, remote.snapshot, base);
  // Covered: nothing to record on top (an undo copy the batch recorded ahead does not name would be).
  const covered = ahead !== null && coveredBy(batch, ahead.batch) && (!undo || ahead.copy !== undefined);
  const undoFolder = !undo ? undefined : covered ? ahead!.copy : copyFolder();
  // The first write follows its read (recorded ahead; a dry run: a push would record ahead).
  const exactLikely = covered || (opts.dryRun === true && !force && !mirror && mayRecordAhead(planned, batch) && (await plannableCopy(session, known)) !== null);
  // Something to write, then an apply: the key must be allowed both.
  const willApply = first.plan.steps.length > 0 && !opts.noApply;
  const report: PushReport = {
    ...emptyPushReport(),
    dryRun: opts.dryRun ?? false,
    changes: first.rec.changes,
    plan: first.plan,
    conflicts: first.rec.conflicts,
    drift: first.rec.drift,
    elsewhere: first.rec.elsewhere ?? [],
    remoteOnly: first.rec.remoteOnly,
    remoteOwned: first.rec.remoteOwned ?? [],
    warnings,
    overwrites: [...first.rec.overridden.conflicts, ...first.rec.overridden.drift].map((x) => x.path),
    applyPending: state.applyPending,
    checkRequests: (opts.force ? 0 : checkRequests(first.plan, remote.snapshot, { exact: exactLikely })) + (willApply && !(await applyScopeKnown(session)) ? 1 : 0),
    massDelete: guard,
    heldDeletes,
    position,
    positionRefused,
    rolledBack: rolledBackIn(record.text),
  };
  // Recorded ahead, a batch that covers this one is this push's record.
  const recordNeeded = (batch.length > 0 || record.text === null) && !covered;
  if (recordNeeded) report.checkRequests += 1;
  if (opts.dryRun || positionRefused !== null) {
    // A refused copy sends nothing and records nothing (pushResult exits 3 with the reason).
    report.durationMs = Date.now() - started;
    return report;
  }
  // A key that may write files but not apply them is found before anything is written.
  if (willApply) await checkApplyScope(session);

  /** The batch this push recorded: its log line names it, so `history` knows its health. */
  let recordedId: string | null = ahead?.id ?? null;
  if (ahead !== null && unrecorded.size > 0) await savePendingRecord(session.stateDir, new Map());
  // The base record takes this push's batch before anything is sent (its befores make a
  // write that does not land harmless): one compare-and-swap. Lost: another machine recorded
  // since our read; read again and plan again, so what it changed is seen, never overwritten.
  if (recordNeeded) {
    // On top of a batch recorded ahead: the copy holds it now.
    const onto = ahead !== null ? ((await copyRead(session)) ?? record) : record;
    const committed = await commitBatch(session, onto, 'push', batch, () => first.rec.nextBase.values(), await stampOf(batch, onto), undoFolder !== undefined ? { copy: undoFolder } : {});
    if (committed.ok) recordedId = committed.id;
    if (committed.ok && unrecorded.size > 0) await savePendingRecord(session.stateDir, new Map());
    if (!committed.ok) {
      const attempt = (retry?.attempt ?? 0) + 1;
      if (attempt >= RECORD_CAS_ATTEMPTS) {
        throw refusal(`the deployment's base record changed ${attempt} times while this push planned (other pushes running?): nothing was sent; run the push again`);
      }
      const planned = parsedRecord(record);
      const own = [...(retry?.own ?? []), ...(ahead !== null ? [ahead.id] : []), ...(aheadLost !== null ? [aheadLost] : []), committed.id];
      return pushUnderLock(session, opts, { tree: { scanned, skipped, warnings: scanWarnings }, planned: planned ? batchIds(planned) : new Set(), own, attempt });
    }
  }

  let applyPending = state.applyPending;
  if (first.plan.steps.length > 0 && !applyPending) {
    await store.setApplyPending(true);
    applyPending = true;
  }

  // The journal (and the copies of what this push replaces) first: undo can take back whatever of it lands.
  const requestsBefore = client.stats().total;
  const journal = await recordPush(session, first.rec.changes, first.plan, remote.snapshot, base, { ...copyOptions, ...(undoFolder !== undefined ? { undoFolder } : {}) });
  report.backup = journal?.archives.find((a) => a.kind === 'safety') ?? null;
  // Fresh: nothing but local work since the plan's read (no leftover cleaning, no copies taken);
  // exact: not even the record's write (it went beside the read, or there was none).
  const fresh = !cleaned && client.stats().total === requestsBefore;
  const sent = await transfer(session, opts, report, { remote, decision: first, fresh, exact: fresh && !recordNeeded }, redecide);
  remote = sent.remote;
  let decision = sent.decision;
  const { intended } = sent;
  const stale = sent.stale || cleaned;
  if (stale) {
    opts.onProgress?.({ phase: 'verify', done: 0, total: 1 });
    remote = await readRemote(client, matcher, null, expectedFiles(decision.local, remote.snapshot));
    decision = redecide(remote);
  }
  // End to end: every change we meant to make is checked against the verified remote.
  const verdict = verify({
    oldBase: base,
    intended,
    failures: report.failures,
    vanished: sent.vanished,
    held: sent.held,
    sent: sent.sent,
    local: decision.local,
    remote: remote.snapshot,
    rec: decision.rec,
    firstConflicts: first.rec.conflicts,
  });
  report.failures.push(...verdict.failures);
  warnings.push(...verdict.warnings);
  for (const o of report.overwritten) warnings.push(overwrittenWarning(o));
  report.conflicts = verdict.conflicts;
  report.counts = verdict.counts;
  const nextBase = verdict.base;

  // Our own archive left by a failed decompress: removed now, and the cache is not
  // trusted (its digest covers the archive we just deleted).
  const leftovers = remote.leftovers;
  if (leftovers.length > 0) await client.files.delete(leftovers);
  // A no-op against an unchanged remote leaves the state as it was: skip rewriting it (at
  // 100k files that is 12 MB, and watch's drift poll is such a push every 30 s).
  // Compared with the base on disk, not the folded one: a landed unverified write must reach state.bin.
  const unchanged = remote.fromCache && !stale && leftovers.length === 0 && snapshotsEqual(nextBase, savedBase);
  if (!unchanged) {
    await store.save({ base: nextBase, remote: remoteCacheOf(remote) });
  }
  // Saved or already so, the base on disk is now this read's: the record's covered paths are
  // settled. One left behind (a write that never landed) would later take the same bytes
  // arriving from elsewhere for ours, and hide a conflict.
  await settleUnverified(session, folded.covered);

  await finishPush(session, journal, remote.snapshot);

  // A half-applied change set is not restarted into: the failures are reported (exit 1)
  // and the apply stays pending for the push that completes it.
  // Permanent refusals (a folder in the way) will not be fixed by waiting, so they do not
  // hold back the apply of everything else.
  // "install": "on-change": a manifest change installs before the restart; a failed one is not restarted into.
  const install = applyPending && !opts.noApply && report.failures.every((f) => f.permanent) ? await installBeforeApply(session, changedPaths(intended.length > 0 ? intended : first.rec.changes)) : null;
  if (install) report.install = install;
  if (install && !install.ok) {
    report.health = installFailureHealth(install);
    report.healthy = false;
  } else if (applyPending && !opts.noApply && report.failures.every((f) => f.permanent)) {
    opts.onProgress?.({ phase: 'apply', done: 0, total: 1 });
    const req = applyRequestFor(config.restart, session.hotPaths, changedPaths(intended.length > 0 ? intended : first.rec.changes), config.applyWaitSeconds);
    if (opts.settingsChanged) req.restart = true;
    const applied = await applyOrRefusal(session, req);
    if (typeof applied === 'string') {
      // The files landed; the report says so, and the apply stays owed.
      report.applyRefused = applied;
    } else {
      await store.setApplyPending(false);
      report.apply = applied;
      opts.onProgress?.({ phase: 'health', done: 0, total: 1 });
      report.health = await awaitHealth(client, applied, config.health, { started: applied.restarted });
      report.healthy = report.health.healthy;
      report.leftOut = [...new Set([...report.failures.map((f) => f.path), ...sent.vanished])].sort();
    }
  } else if (opts.checkIdle && !applyPending && !opts.noApply && report.failures.length === 0) {
    // Nothing to send, but "up to date" must not read green while the app is down.
    const diagnosed = await client.deployments.diagnose(Math.min(config.health.timeoutSeconds, IDLE_CHECK_WAIT_SECONDS));
    report.health = await awaitHealth(client, diagnosed, config.health, { started: false, once: true });
    report.health.requests += 1;
    report.healthy = report.health.healthy;
  }
  report.applyPending = applyPending && report.apply === null;
  report.durationMs = Date.now() - started;
  if (unchanged && report.apply === null && report.failures.length === 0) return report; // nothing worth a log line
  await store.appendLog({ ...logLineOf('push', report, client.stats().total), ...(recordedId !== null ? { batch: recordedId } : {}) });
  return report;
}

/** The record's newest deploy, when it is a rollback: what status says of it (issue 48). Read from the text's end, unparsed. */
function rolledBackIn(text: string | null): PushReport['rolledBack'] {
  const h = text === null ? null : lastHeaderOf(text, DEPLOYS_OR_ROLLBACK);
  return h?.kind === 'rollback' ? { to: h.to ?? '?', time: h.t, host: h.host, dir: h.dir } : null;
}
const DEPLOYS_OR_ROLLBACK: ReadonlySet<BatchKind> = new Set<BatchKind>([...DEPLOYS, 'rollback']);
