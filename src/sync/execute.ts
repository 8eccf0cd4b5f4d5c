import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DELETE_BATCH_PATHS, WRITE_MANY_ATTEMPTS } from './tunables.js';
import type { WriteFile } from '../api/types.js';
import type { HostingClient } from '../remote/client.js';
import { ApiError, OutcomeUnknownError } from '../remote/errors.js';
import { xxh64Bytes } from '../local/hash.js';
import { archiveName } from './remote-read.js';
import type { Entry, Plan, Snapshot, Step } from '../model/types.js';

/** Progress reported to the porcelain; the engine itself never prints. */
export interface ProgressEvent {
  phase: 'scan' | 'index' | 'transfer' | 'verify' | 'apply' | 'health';
  done: number;
  total: number;
}
export type ProgressFn = (event: ProgressEvent) => void;

export interface StepFailure {
  path: string;
  error: string;
  /**
   * The service refused it for a reason retrying will not change (a folder in the way, a
   * taken name, a 4xx). Watch mode reports it like a conflict instead of backing off, and
   * it does not hold back the apply of everything else.
   */
  permanent?: boolean;
}

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
}

export interface ExecuteOptions {
  client: HostingClient;
  root: string;
  /** The remote as the plan saw it: tells which write targets are folders there now. */
  remote: Snapshot;
  onProgress?: ProgressFn;
}

const localPath = (root: string, rel: string): string => path.join(root, ...rel.split('/'));
const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * Runs a plan's steps in order: deletes, renames, writes, chmods (the planner's order;
 * the groups depend on each other, steps within a group do not, so a group runs
 * concurrently and the client's queue bounds what is in flight).
 * Stops at the first unknown outcome: continuing on a guess could clobber something.
 */
export async function executePlan(plan: Plan, opts: ExecuteOptions): Promise<ExecResult> {
  const result: ExecResult = { written: 0, deleted: 0, moved: 0, chmod: 0, failures: [], outcomeUnknown: false, sent: new Map(), vanished: [] };
  const totalBytes = plan.bytes;
  let doneBytes = 0;
  const tick = (bytes = 0): void => {
    doneBytes += bytes;
    opts.onProgress?.({ phase: 'transfer', done: doneBytes, total: totalBytes });
  };

  const groups = groupSteps(plan.steps);
  for (let group of groups) {
    if (group[0]?.op === 'writeMany' || group[0]?.op === 'upload' || group[0]?.op === 'archive') {
      const blocked = await clearFolderTargets(group, opts, result);
      if (blocked.size > 0) group = withoutPaths(group, blocked);
    }
    await Promise.all(
      group.map(async (step) => {
        try {
          await runStep(step, opts, result);
          tick('bytes' in step ? step.bytes : 0);
        } catch (err) {
          if (err instanceof OutcomeUnknownError) {
            result.outcomeUnknown = true;
            return;
          }
          // A refused key or missing scope fails every step alike: the whole push stops with it.
          if (err instanceof ApiError && (err.status === 401 || err.status === 403)) throw err;
          const permanent = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429;
          for (const p of stepPaths(step)) result.failures.push({ path: p, error: message(err), permanent });
        }
      }),
    );
    if (result.outcomeUnknown) break;
  }
  return result;
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

async function runStep(step: Step, opts: ExecuteOptions, result: ExecResult): Promise<void> {
  const { client, root } = opts;
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
    case 'writeMany':
      await writeBatch(step.files, opts, result);
      return;
    case 'upload': {
      const files = step.files.map((f) => ({ name: path.posix.basename(f.path), localPath: localPath(root, f.path), size: f.size }));
      await client.files.upload(step.dir, files);
      result.written += step.files.length;
      return;
    }
    case 'archive': {
      const uploaded = await client.files.uploadArchive(root, step.files.map((f) => f.path), '', archiveName());
      try {
        await client.files.decompress(uploaded.path, { removeArchive: true });
      } catch (err) {
        // A refused decompress leaves our archive behind: remove it (an unknown outcome
        // leaves it to the re-read, which finds it by name).
        if (!(err instanceof OutcomeUnknownError)) await client.files.delete([uploaded.path]).catch(() => undefined);
        throw err;
      }
      result.written += step.files.length;
      return;
    }
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
async function writeBatch(files: Entry[], opts: ExecuteOptions, result: ExecResult): Promise<void> {
  let pending = files;
  let lastError = new Map<string, string>();
  for (let attempt = 0; attempt < WRITE_MANY_ATTEMPTS && pending.length > 0; attempt++) {
    const payload: WriteFile[] = [];
    for (const f of pending) {
      try {
        payload.push({ path: f.path, content: await readFile(localPath(opts.root, f.path), 'utf8'), mode: 'overwrite' });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') result.vanished.push(f.path);
        else result.failures.push({ path: f.path, error: `could not read the local file (${code ?? message(err)}); the next push picks it up` });
      }
    }
    if (payload.length === 0) return;
    const res = await opts.client.files.writeMany(payload);
    const strip = (p: string): string => p.replace(/^\/+/, '');
    const landed = new Set(res.written.map((w) => strip(w.path)));
    lastError = new Map(res.failed.map((f) => [strip(f.path), f.error]));
    result.written += landed.size;
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
}

/**
 * A file that replaces a folder (dir -> file) cannot land while the folder exists. The
 * plan already deleted the files we tracked under it; the folder itself is removed only
 * when it is now empty, because a non-empty folder holds something we did not put there
 * (ignored or remote-only files) and deleted folders cannot be restored.
 */
async function clearFolderTargets(group: Step[], opts: ExecuteOptions, result: ExecResult): Promise<Set<string>> {
  const blocked = new Set<string>();
  const remoteDirs = new Set<string>();
  for (const p of opts.remote.keys()) {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) remoteDirs.add(p.slice(0, i));
  }
  const targets = group.flatMap((s) => stepPaths(s)).filter((p) => remoteDirs.has(p));
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
  return blocked;
}
