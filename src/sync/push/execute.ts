import { createWriteStream, lstatSync, type Stats } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DELETE_BATCH_PATHS, SLIP_CHECK_MAX_FILES, TRANSFER_VANISHED_ATTEMPTS, VANISHED_CHECK_SLICE, WRITE_MANY_ATTEMPTS } from '../tunables.js';
import type { WriteFile } from '../../api/types.js';
import { NODE_UPLOAD_MAX_BYTES } from '../../api/limits.js';
import { tarGzStream, type PartBudget } from '../../remote/upload.js';
import { partFits, tarEntryBytesOf } from '../core/archive-bound.js';
import { archivePartMargin, archivePartsAtWorst, modeOf } from '../core/plan.js';
import { parentDir } from '../../model/paths.js';
import { countBelow } from '../../model/tree-snapshot.js';
import type { HostingClient } from '../../remote/client.js';
import { ApiError, OutcomeUnknownError } from '../../remote/errors.js';
import { xxh64Bytes } from '../../local/hash.js';
import { archiveName } from '../remote-read/remote-read.js';
import type { Entry, Plan, Snapshot, Step } from '../../model/types.js';

/** Progress reported to the porcelain; the engine itself never prints. */
export interface ProgressEvent {
  phase: 'scan' | 'index' | 'transfer' | 'verify' | 'apply' | 'health';
  done: number;
  total: number;
}
export type ProgressFn = (event: ProgressEvent) => void;

import type { StepFailure } from '../../model/types.js';
export type { StepFailure };

export interface ExecResult {
  written: number;
  deleted: number;
  moved: number;
  chmod: number;
  failures: StepFailure[];
  /** A non-idempotent step's outcome is unknown: the caller must re-read the remote and re-plan. */
  outcomeUnknown: boolean;
  /**
   * path -> XXH64 of the bytes actually sent by writeMany. A file edited between the scan
   * and the send differs from its scanned entry; this tells the verify step that the
   * remote's bytes are still ours.
   */
  sent: Map<string, string>;
  /** Files that vanished locally between the scan and the send: not sent, not a failure (the deletion is the next push's). */
  vanished: string[];
  /**
   * Files the re-check right before their write found changed on the deployment since the
   * plan's read: not written, so nobody's edit is clobbered (the verifying read judges them).
   */
  held: string[];
  /** Remote edits that landed between the re-check and the write, and were overwritten. */
  overwritten: Overwritten[];
}

/** A remote edit our write replaced; files.history keeps what it held. */
export interface Overwritten {
  path: string;
  /** The files.history version holding the replaced content (files.restore brings it back). */
  versionId: string;
  bytes: number;
}

/** The one line telling the user a remote edit was overwritten, and where it is kept. */
export const overwrittenWarning = (o: Overwritten): string =>
  `${o.path} was changed on the deployment while this push wrote it, and was overwritten: files.history version ${o.versionId} keeps that content (files.restore brings it back)`;

/** What the deployment holds at some paths now. */
export type RecheckFn = (paths: string[]) => Promise<{ snapshot: Snapshot; symlinks: string[] }>;

export interface ExecuteOptions {
  client: HostingClient;
  root: string;
  /** The remote as the plan saw it: tells which write targets are folders there now. */
  remote: Snapshot;
  onProgress?: ProgressFn;
  /**
   * Given, each write step first re-reads its paths (a scoped files.index) and holds back
   * every file the deployment changed since `remote` was read (but the first, when `fresh`);
   * then each overwrite by writeMany is checked against files.history for an edit that
   * slipped in between. A forced push passes none: local wins there by request.
   */
  recheck?: RecheckFn;
  /** `remote` was read by the request just before this call (nothing but local planning in between). */
  fresh?: boolean;
  /**
   * With `fresh`: not even the base record's compare-and-swap came between (it went with the
   * read: record-ahead.ts). The first write then follows the read as closely as a re-check
   * would, and needs no files.history slip check either.
   */
  exact?: boolean;
  /** The node's per-file upload limit the plan was made for (planChanges); default NODE_UPLOAD_MAX_BYTES. */
  uploadMaxBytes?: number;
}

const localPath = (root: string, rel: string): string => path.join(root, ...rel.split('/'));
/** Where an entry's bytes are on disk: its wire path, unless the disk names it otherwise (Entry.local, NFD names). */
const diskPath = (f: Entry): string => f.local ?? f.path;
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Runs a plan's steps in order: deletes, renames, writes, chmods (the planner's order;
 * the groups depend on each other, steps within a group do not, so a group runs
 * concurrently and the client's queue bounds what is in flight).
 * Stops at the first unknown outcome: continuing on a guess could clobber something.
 */
export async function executePlan(plan: Plan, opts: ExecuteOptions): Promise<ExecResult> {
  const result: ExecResult = {
    written: 0, deleted: 0, moved: 0, chmod: 0, failures: [], outcomeUnknown: false, sent: new Map(), vanished: [], held: [], overwritten: [],
  };
  // The plan's read was the last request: the first write needs no re-check (it would leave
  // the same one-request window). Any request since, and the next write is re-checked.
  let fresh = opts.fresh ?? false;
  const slipCheck = opts.recheck !== undefined && writeManyOverwrites(plan, opts.remote) <= SLIP_CHECK_MAX_FILES;
  const totalBytes = plan.bytes;
  let doneBytes = 0;
  const tick = (bytes = 0): void => {
    doneBytes += bytes;
    opts.onProgress?.({ phase: 'transfer', done: doneBytes, total: totalBytes });
  };

  const groups = groupSteps(plan.steps);
  for (let group of groups) {
    if (group[0]?.op === 'writeMany' || group[0]?.op === 'upload' || group[0]?.op === 'archive') {
      const cleared = await clearFolderTargets(group, opts, result);
      if (cleared.requested) fresh = false;
      if (cleared.blocked.size > 0) group = withoutPaths(group, cleared.blocked);
    }
    await Promise.all(
      group.map(async (step) => {
        const landed = new Set<string>();
        try {
          const recheck = !fresh;
          const exact = fresh && (opts.exact ?? false);
          fresh = false;
          await runStep(step, opts, result, { recheck, slipCheck: slipCheck && !exact, landed });
          tick('bytes' in step ? step.bytes : 0);
        } catch (err) {
          if (err instanceof OutcomeUnknownError) {
            result.outcomeUnknown = true;
            return;
          }
          // A refused key or missing scope fails every step alike: the whole push stops with it.
          if (err instanceof ApiError && (err.status === 401 || err.status === 403)) throw err;
          const permanent = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429;
          // An archive's earlier parts may have landed: only what did not is failed.
          for (const p of stepPaths(step)) if (!landed.has(p)) result.failures.push({ path: p, error: message(err), permanent });
        }
      }),
    );
    if (result.outcomeUnknown) break;
  }
  return result;
}

const isWrite = (s: Step): boolean => s.op === 'writeMany' || s.op === 'upload' || s.op === 'archive';

function writeManyOverwrites(plan: Plan, remote: Snapshot): number {
  return plan.steps.reduce((n, s) => n + (s.op === 'writeMany' ? s.files.filter((f) => remote.has(f.path)).length : 0), 0);
}

/**
 * The requests executePlan's safety checks add to `plan.requests` when given a recheck and a
 * fresh read (see ExecuteOptions), at most: a scoped index before every write step (every
 * archive part) but a first one,
 * and a files.history per writeMany overwrite in a small plan. Scoped reads that come back
 * truncated cost more; a status estimate accepts that.
 */
export function checkRequests(plan: Plan, remote: Snapshot, opts: { uploadMaxBytes?: number; exact?: boolean } = {}): number {
  // An archive step re-checks before each part after its first: as many parts as it may need at worst.
  const writes = plan.steps.reduce((n, s) => n + (s.op === 'archive' ? archivePartsAtWorst(s.files, opts.uploadMaxBytes ?? NODE_UPLOAD_MAX_BYTES) : isWrite(s) ? 1 : 0), 0);
  const first = plan.steps[0];
  const rechecks = writes - (first && isWrite(first) ? 1 : 0);
  const overwrites = writeManyOverwrites(plan, remote);
  // An exact first write (ExecuteOptions.exact) is not slip-checked.
  const unchecked = opts.exact && first?.op === 'writeMany' ? writeManyOverwrites({ ...plan, steps: [first] }, remote) : 0;
  return rechecks + (overwrites <= SLIP_CHECK_MAX_FILES ? overwrites - unchecked : 0);
}

/** The write steps minus files that cannot land (a non-empty folder is in the way). */
function withoutPaths(group: Step[], blocked: Set<string>): Step[] {
  const out: Step[] = [];
  for (const step of group) {
    if (step.op !== 'writeMany' && step.op !== 'upload' && step.op !== 'archive') {
      out.push(step);
      continue;
    }
    const files = step.files.filter((f) => !blocked.has(f.path));
    if (files.length > 0) out.push({ ...step, files, bytes: files.reduce((n, f) => n + f.size, 0) });
  }
  return out;
}

/** Consecutive steps of the same kind of work form a group (the planner emits them grouped). */
function groupSteps(steps: Step[]): Step[][] {
  const kind = (s: Step): string => (s.op === 'writeMany' || s.op === 'upload' || s.op === 'archive' ? 'write' : s.op);
  const groups: Step[][] = [];
  for (const step of steps) {
    const last = groups[groups.length - 1];
    if (last && kind(last[0]!) === kind(step)) last.push(step);
    else groups.push([step]);
  }
  return groups;
}

function stepPaths(step: Step): string[] {
  switch (step.op) {
    case 'writeMany':
    case 'upload':
    case 'archive':
      return step.files.map((f) => f.path);
    case 'delete':
      return step.paths;
    case 'rename':
      return [step.from, step.to];
    case 'move':
      return step.files;
    case 'chmod':
      return [step.path];
  }
}

async function runStep(step: Step, opts: ExecuteOptions, result: ExecResult, checks: { recheck: boolean; slipCheck: boolean; landed: Set<string> }): Promise<void> {
  const { client, root } = opts;
  if (checks.recheck && (step.op === 'writeMany' || step.op === 'upload' || step.op === 'archive')) {
    const files = await withoutRemoteEdits(step.files, opts, result);
    if (files.length === 0) return;
    step = { ...step, files };
  }
  switch (step.op) {
    case 'delete': {
      for (let i = 0; i < step.paths.length; i += DELETE_BATCH_PATHS) {
        const batch = step.paths.slice(i, i + DELETE_BATCH_PATHS);
        const res = await client.files.delete(batch);
        result.deleted += res.deleted;
      }
      return;
    }
    case 'rename':
      await client.files.rename(step.from, step.to);
      result.moved++;
      return;
    case 'move': {
      // files.move never overwrites: a taken name comes back in `failed`, per file.
      const res = await client.files.move(step.files, step.to === '' ? '/' : step.to);
      result.moved += res.moved.length;
      for (const f of res.failed) result.failures.push({ path: f.from.replace(/^\/+/, ''), error: f.reason, permanent: true });
      return;
    }
    case 'chmod':
      await client.files.chmod(step.path, step.mode);
      result.chmod++;
      return;
    case 'writeMany': {
      const landed = await writeBatch(step.files, opts, result);
      if (checks.slipCheck) await findOverwritten(landed, opts, result);
      return;
    }
    case 'upload': {
      const sent = await sendPresent(step.files, opts, result, (present) =>
        client.files.upload(step.dir, present.map((f) => ({ name: path.posix.basename(f.path), localPath: localPath(root, diskPath(f)), size: f.size }))),
      );
      result.written += sent.length;
      return;
    }
    case 'archive': {
      // tar names an entry by its disk path: a file the disk names otherwise (an NFD name,
      // local/names.ts) goes by plain upload under its wire name instead. Rare: never on Linux.
      const renamed = step.files.filter((f) => f.local !== undefined);
      for (const f of renamed) {
        const sent = await sendPresent([f], opts, result, async () => {
          await client.files.upload(parentDir(f.path), [{ name: path.posix.basename(f.path), localPath: localPath(root, diskPath(f)), size: f.size }]);
          if (f.executable) await client.files.chmod(f.path, modeOf(true));
        });
        result.written += sent.length;
        for (const s of sent) checks.landed.add(s.path);
      }
      const tarred = renamed.length === 0 ? step.files : step.files.filter((f) => f.local === undefined);
      if (tarred.length > 0) await sendArchive(tarred, opts, result, checks.landed);
      return;
    }
  }
}

/**
 * An archive step: its files (in order) as consecutive tar.gz parts, each cut by its
 * compressed size within the node's upload limit (uploadArchive with a budget), each
 * uploaded and then decompressed. Before every part but the first the rest is re-checked
 * (the first one runStep checked, or needed not): a later part lands minutes after the
 * plan's read on a large tree. A file that cannot fit an empty part even at the bound's
 * worst is measured before it is sent (uploadMeasured). Landed paths go to `landed`.
 */
async function sendArchive(files: Entry[], opts: ExecuteOptions, result: ExecResult, landed: Set<string>): Promise<void> {
  const limit = opts.uploadMaxBytes ?? NODE_UPLOAD_MAX_BYTES;
  const budget: PartBudget = {
    maxBytes: limit,
    entryBytes: tarEntryBytesOf,
    fits: (flushed, tarBytes) => partFits(limit, flushed, tarBytes, archivePartMargin(limit)),
  };
  let rest = files;
  for (let part = 0; rest.length > 0; part++) {
    if (part > 0) {
      rest = await withoutRemoteEdits(rest, opts, result);
      if (rest.length === 0) return;
    }
    let carried: Entry[] = [];
    let uploaded = null as { path: string } | null;
    const present = await sendPresent(rest, opts, result, async (present, stats) => {
      const head = present[0]!;
      const headStat = stats.get(head.path);
      if (!headStat || !budget.fits(0, budget.entryBytes(head.path, headStat.isFile() ? headStat.size : 0))) {
        carried = [head];
        uploaded = await uploadMeasured([head], opts, result, limit);
        return;
      }
      const res = await opts.client.files.uploadArchive(opts.root, present.map((f) => f.path), '', archiveName(), {
        stats: present.map((f) => stats.get(f.path)!),
        budget,
      });
      carried = present.slice(0, res.files);
      uploaded = { path: res.path };
    });
    rest = present.slice(carried.length);
    if (!uploaded) continue; // measured and sent otherwise, or failed: uploadMeasured reported it
    try {
      await opts.client.files.decompress((uploaded as { path: string }).path, { removeArchive: true, files: carried.length });
    } catch (err) {
      // A refused decompress leaves our archive behind: remove it (an unknown outcome
      // leaves it to the re-read, which finds it by name).
      if (!(err instanceof OutcomeUnknownError)) await opts.client.files.delete([(uploaded as { path: string }).path]).catch(() => undefined);
      throw err;
    }
    result.written += carried.length;
    for (const f of carried) landed.add(f.path);
  }
}

/**
 * writeMany stops at its first failing file and says which landed. Everything in a
 * batch is an overwrite, so whatever did not land (the failing file included) is sent
 * again, up to WRITE_MANY_ATTEMPTS sends: the reply does not say whether a node failure
 * is transient, and a failure reported as permanent would let the app restart into a
 * half-pushed change set. A file that vanished locally since the scan is dropped from
 * the batch and reported: the only thing here retrying cannot fix.
 */
async function writeBatch(files: Entry[], opts: ExecuteOptions, result: ExecResult): Promise<string[]> {
  const done: string[] = [];
  let pending = files;
  let lastError = new Map<string, string>();
  for (let attempt = 0; attempt < WRITE_MANY_ATTEMPTS && pending.length > 0; attempt++) {
    const payload: WriteFile[] = [];
    for (const f of pending) {
      try {
        payload.push({ path: f.path, content: await readFile(localPath(opts.root, diskPath(f)), 'utf8'), mode: 'overwrite' });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') result.vanished.push(f.path);
        else result.failures.push({ path: f.path, error: `could not read the local file (${code ?? message(err)}); the next push picks it up` });
      }
    }
    if (payload.length === 0) return done;
    const res = await opts.client.files.writeMany(payload);
    const strip = (p: string): string => p.replace(/^\/+/, '');
    const landed = new Set(res.written.map((w) => strip(w.path)));
    lastError = new Map(res.failed.map((f) => [strip(f.path), f.error]));
    result.written += landed.size;
    done.push(...landed);
    for (const w of payload) if (landed.has(w.path)) result.sent.set(w.path, await xxh64Bytes(w.content));
    const byPath = new Map(pending.map((f) => [f.path, f]));
    pending = payload.filter((w) => !landed.has(w.path)).map((w) => byPath.get(w.path)!);
  }
  for (const f of pending) {
    const error = lastError.get(f.path);
    result.failures.push({
      path: f.path,
      error: error ? `${error} (${WRITE_MANY_ATTEMPTS} attempts)` : `not written: the batch stopped at an earlier failure ${WRITE_MANY_ATTEMPTS} times`,
    });
  }
  return done;
}

const sizeText = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${Number((bytes / (1024 * 1024)).toFixed(1))} MB` : `${Math.ceil(bytes / 1024)} KB`;

/**
 * An archive that might not fit the node's upload limit (a file over it, the one fallback
 * the API leaves: compressed, then files.decompress) is built into a local temp file first,
 * stopping as soon as it grows past the limit. It is sent only when it fits; otherwise a
 * file within the limit goes by plain upload, and one over it is not sent at all: it fails
 * permanently with a line naming it and its size.
 */
async function uploadMeasured(files: Entry[], opts: ExecuteOptions, result: ExecResult, limit: number): Promise<{ path: string } | null> {
  const dir = await mkdtemp(path.join(tmpdir(), 'hostsync-archive-'));
  const name = archiveName();
  const file = path.join(dir, name);
  try {
    const archive = tarGzStream(opts.root, files.map((f) => f.path));
    const out = createWriteStream(file);
    let over = false;
    try {
      for await (const chunk of archive.stream) {
        if (archive.bytes() > limit) {
          over = true;
          break;
        }
        if (!out.write(chunk)) await once(out, 'drain');
      }
    } finally {
      archive.destroy();
      out.end();
      await finished(out).catch(() => undefined);
    }
    if (over) {
      for (const f of files) {
        if (f.size <= limit) {
          // Within the limit as it is (only tar's and gzip's framing pushed it over): a plain
          // upload, which lands 0644, so an executable bit is set again.
          await opts.client.files.upload(parentDir(f.path), [{ name: path.posix.basename(f.path), localPath: localPath(opts.root, diskPath(f)), size: f.size }]);
          if (f.executable) await opts.client.files.chmod(f.path, modeOf(true));
          result.written++;
          continue;
        }
        result.failures.push({
          path: f.path,
          error: `${f.path} is ${sizeText(f.size)}, over the node's ${sizeText(limit)} upload limit, and still over it compressed: not sent (split it, or list it in .syncignore)`,
          permanent: true,
        });
      }
      return null;
    }
    const size = archive.bytes();
    await opts.client.files.upload('', [{ name, localPath: file, size }]);
    return { path: name };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The files still there locally; the others go to `result.vanished` (a folder removed, or
 * replaced by a file). `stats` receives each present file's lstat. Synchronous lstat in
 * slices, yielding between them: on 100k files that is about a fifth of the CPU of
 * promises (bench/README.md, Scale: 0.5 s against 2.6 s), and an initial push's archive lists them all.
 */
async function dropVanished(files: Entry[], root: string, result: ExecResult, stats?: Map<string, Stats>): Promise<Entry[]> {
  const present: Entry[] = [];
  for (let i = 0; i < files.length; i += VANISHED_CHECK_SLICE) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const f of files.slice(i, i + VANISHED_CHECK_SLICE)) {
      try {
        const st = lstatSync(localPath(root, diskPath(f)));
        stats?.set(f.path, st);
        present.push(f);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        // Unreadable for another reason: kept, and the send reports it.
        if (code === 'ENOENT' || code === 'ENOTDIR') result.vanished.push(f.path);
        else present.push(f);
      }
    }
  }
  return present;
}

/**
 * Sends the files of an upload or archive step that are still there, and returns them.
 * An upload or an archive streams whole files from disk, so a file that vanishes while it
 * streams fails the whole transfer (tar and the multipart encoder cannot leave a part out
 * half way). Such a failure is answered by sending again without what vanished, which
 * clobbers nothing: of a broken archive upload nothing lands but the archive (decompress
 * has not run; a partial archive is a leftover the verifying read removes), and of a broken
 * plain upload only parts of our own files, which the resend writes again.
 */
async function sendPresent(
  files: Entry[], opts: ExecuteOptions, result: ExecResult, send: (present: Entry[], stats: Map<string, Stats>) => Promise<void>,
): Promise<Entry[]> {
  let stats = new Map<string, Stats>();
  let present = await dropVanished(files, opts.root, result, stats);
  for (let attempt = 1; present.length > 0; attempt++) {
    try {
      await send(present, stats);
      return present;
    } catch (err) {
      stats = new Map();
      const still = await dropVanished(present, opts.root, result, stats);
      if (still.length === present.length || attempt >= TRANSFER_VANISHED_ATTEMPTS) throw err;
      present = still;
    }
  }
  return present;
}

/** Same remote file as far as a write is concerned: both absent, or the same content. */
function sameRemote(a: Entry | undefined, b: Entry | undefined): boolean {
  if (!a || !b) return !a && !b;
  return a.size === b.size && a.hash === b.hash;
}

/**
 * The API has no conditional write, so the window between the plan's read and a write is
 * narrowed instead: right before the write, the step's paths are read again, and a file the
 * deployment changed meanwhile (edited, created, deleted, or now behind a symlink) is held
 * back. What lands in the remaining window (one request) is found by findOverwritten.
 */
async function withoutRemoteEdits(files: Entry[], opts: ExecuteOptions, result: ExecResult): Promise<Entry[]> {
  if (!opts.recheck) return files;
  const now = await opts.recheck(files.map((f) => f.path));
  const linked = (p: string): boolean => now.symlinks.some((l) => p === l || p.startsWith(`${l}/`));
  const keep: Entry[] = [];
  for (const f of files) {
    if (linked(f.path) || !sameRemote(opts.remote.get(f.path), now.snapshot.get(f.path))) result.held.push(f.path);
    else keep.push(f);
  }
  return keep;
}

/**
 * A writeMany overwrite keeps the replaced content as the file's newest files.history
 * version. When its size is not the size the re-check saw, someone wrote the file in the
 * window between the re-check and our write: reported with that version, so nothing is lost
 * unseen. A same-size edit in that window is not detectable this way (docs/safety.md: the residual
 * window). One request per overwritten file, so only for plans overwriting at most
 * SLIP_CHECK_MAX_FILES files by writeMany.
 */
async function findOverwritten(landed: string[], opts: ExecuteOptions, result: ExecResult): Promise<void> {
  for (const p of landed) {
    const before = opts.remote.get(p);
    if (!before) continue;
    let newest;
    try {
      newest = (await opts.client.files.history(p)).versions[0];
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) throw err;
      continue; // the check is a safety net; a failed read of it is not a failed write
    }
    if (newest && newest.bytes !== before.size) result.overwritten.push({ path: p, versionId: newest.id, bytes: newest.bytes });
  }
}

/**
 * The paths among `paths` that are folders on the deployment (a folder is no entry, only a
 * prefix of some). A path the deployment holds a file at is none, so a push of edited files
 * asks nothing more; only new paths cost a pass over the remote's paths (at 100k files,
 * ~0.2 s of making every entry of a remote kept unmade).
 */
export function remoteFolders(remote: Snapshot, paths: readonly string[]): string[] {
  const open = [...new Set(paths)].filter((p) => !remote.has(p));
  if (open.length === 0) return [];
  const counted = open.map((p) => countBelow(remote, p));
  if (counted.every((n) => n !== undefined)) return open.filter((_, i) => counted[i]! > 0);
  const wanted = new Set(open);
  const found = new Set<string>();
  for (const p of remote.keys()) {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) {
      const dir = p.slice(0, i);
      if (wanted.has(dir)) found.add(dir);
    }
  }
  return open.filter((p) => found.has(p));
}

/**
 * A file that replaces a folder (dir -> file) cannot land while the folder exists. The
 * plan already deleted the files we tracked under it; the folder itself is removed only
 * when it is now empty, because a non-empty folder holds something we did not put there
 * (ignored or remote-only files) and deleted folders cannot be restored.
 */
async function clearFolderTargets(group: Step[], opts: ExecuteOptions, result: ExecResult): Promise<{ blocked: Set<string>; requested: boolean }> {
  const blocked = new Set<string>();
  const targets = remoteFolders(opts.remote, group.flatMap((s) => stepPaths(s)));
  const requested = targets.length > 0;
  for (const dir of targets) {
    try {
      const listing = await opts.client.files.list(dir);
      if (listing.entries.length > 0) {
        result.failures.push({ path: dir, error: `the deployment has a non-empty folder at ${dir}; move its contents away, then push again`, permanent: true });
        blocked.add(dir);
        continue;
      }
      await opts.client.files.delete([dir]);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) continue;
      throw err;
    }
  }
  return { blocked, requested };
}
