/**
 * The planner: changes -> ordered Steps, choosing by cost. Pure: data in, data out.
 *
 * Step order (the executor runs them in this order):
 *   1. one delete step: frees file -> directory transitions and rename targets;
 *   2. moves, then renames (their targets are free after 1, so their order is irrelevant);
 *   3. writes: writeMany batches, then upload steps, or instead archive steps;
 *   4. chmods, which must follow the writes and renames that create their files.
 * Within each group the order is deterministic (by path, code units).
 *
 * How files travel:
 * - text (entry.text === true) under TEXT_UPLOAD_THRESHOLD_BYTES: files.writeMany batches
 *   of at most WRITE_MANY_BATCH_BYTES content, packed first-fit-decreasing (fewest batches);
 * - anything else (binary, large text, text unknown): one upload step per target directory
 *   (files.uploadUrl is per directory: one API request, then one POST to the node);
 * - archive: a tar.gz through uploadUrl + decompress (2 API requests) carrying every file
 *   to write, and their executable bits (tar keeps mode), when at least ARCHIVE_MIN_FILES
 *   files travel and it is cheaper. One archive step; the executor cuts it into parts
 *   by their compressed size, each within the node's upload limit (`uploadMaxBytes`, a
 *   per-part cap). A compressed size cannot be known here, so the step is costed at the
 *   parts it needs at worst (nothing compresses; archivePartsAtWorst): the plan's figures
 *   are upper bounds. A file too large to fit an empty part even so goes alone in its own.
 * - a file over the upload limit cannot be uploaded as it is: it travels alone in an
 *   archive, the one fallback the API allows (the executor compresses it first and sends
 *   it only when the tar.gz fits).
 * - a file written by writeMany lands 0644 when new and keeps its old remote mode when
 *   overwritten; an uploaded file always lands 0644 (the node replaces it); a renamed file keeps its source's mode: a chmod step follows
 *   wherever that differs from local. Modes are "0755" / "0644".
 *
 * Cost = API requests x REQUEST_COST_BYTES + content bytes (an archive's bytes estimated as
 * the sum of sizes, before compression). Between layouts that send the same files, that is
 * "fewest requests"; it only weighs bytes against requests where a choice trades them:
 * - a rename (1 request, 0 bytes) against sending the file again (often 0 extra requests);
 * - a chmod-only change (1 request each) against resending the file inside an archive.
 * The planner builds every candidate (renames as given, or some resent: the small ones that
 * cannot join a files.move, all small ones, or all; crossed with no archive / archive /
 * archive also carrying chmod-only files) and keeps the cheapest; on a tie the earlier,
 * simpler candidate wins.
 */
import { ARCHIVE_MIN_FILES, ARCHIVE_PART_MARGIN_FRACTION, MASS_DELETE_FRACTION, MASS_DELETE_MIN_FILES, REQUEST_COST_BYTES, TEXT_UPLOAD_THRESHOLD_BYTES, WRITE_MANY_BATCH_BYTES } from '../tunables.js';
import { NODE_UPLOAD_MAX_BYTES } from '../../api/limits.js';
import { archiveBound, partFits, tarEntryBytes } from './archive-bound.js';
import { baseName, comparePaths, parentDir } from '../../model/paths.js';
import type { Change, Entry, Plan, Snapshot, Step } from '../../model/types.js';

type Write = Extract<Change, { kind: 'write' }>;
type Delete = Extract<Change, { kind: 'delete' }>;
type Rename = Extract<Change, { kind: 'rename' }>;
type Chmod = Extract<Change, { kind: 'chmod' }>;

const EXECUTABLE_MODE = '0755';
const REGULAR_MODE = '0644';
/** The mode a file gets when only its executable bit matters (the one bit that travels). */
export const modeOf = (executable: boolean): string => (executable ? EXECUTABLE_MODE : REGULAR_MODE);

/** `uploadMaxBytes`: the node's per-file upload limit (tests pass a small one, as the emulator takes). */
export function planChanges(changes: Change[], remote: Snapshot, uploadMaxBytes = NODE_UPLOAD_MAX_BYTES): Plan {
  let best: Plan | undefined;
  let bestCost = Infinity;
  for (const variant of renameVariants(changes, remote)) {
    for (const layout of LAYOUTS) {
      const plan = buildPlan(variant, remote, layout, uploadMaxBytes);
      if (!plan) continue;
      const cost = plan.requests * REQUEST_COST_BYTES + plan.bytes;
      if (cost < bestCost) {
        best = plan;
        bestCost = cost;
      }
    }
  }
  // The 'direct' layout of the first variant always builds.
  return best as Plan;
}

/**
 * Mass-deletion guard (DESIGN.md): refuse a push that deletes more than half of the tracked
 * files when that is also more than MASS_DELETE_MIN_FILES; both bounds are strict ("more
 * than"). Whatever the size, a push that deletes every tracked file is refused too: a
 * five-file project emptied (a deleted folder, a wrong --dir) is the same mistake as a
 * large one, only under the threshold (issue 27, item 4). Renames are not deletions (the content stays on the remote). `trackedCount` is
 * the number of files the base tracks (0 on a first push, where any large `mirror`
 * deletion is refused). `earlierDeletes` are deletions watch already made within its
 * window (counted in `trackedCount` too): a slow deletion trips the guard like a fast one.
 */
export function massDeleteGuard(
  changes: Change[],
  trackedCount: number,
  earlierDeletes = 0,
  /**
   * Tracked files that configure hostsync (hostsync.json, .syncignore, ...) and stay: they
   * do not make a project non-empty. An app whose every file went while hostsync.json
   * stayed is "every tracked file" all the same (issue 44, item 14).
   */
  keptConfig = 0,
): { refuse: boolean; deletes: number; tracked: number } {
  const own = changes.filter((c) => c.kind === 'delete').length;
  const deletes = earlierDeletes + own;
  const most = deletes > MASS_DELETE_MIN_FILES && deletes > trackedCount * MASS_DELETE_FRACTION;
  const all = deletes >= trackedCount - keptConfig;
  const refuse = own > 0 && (most || all);
  return { refuse, deletes, tracked: trackedCount };
}

type Layout = 'direct' | 'archive' | 'archive+chmod';
const LAYOUTS: readonly Layout[] = ['direct', 'archive', 'archive+chmod'];

/**
 * The change set with its renames as given, and with some of them sent as delete + write
 * instead: the small ones (under REQUEST_COST_BYTES) that cannot join a files.move, all small
 * ones, or all. Resending one big rename alone never pays (it adds at least
 * REQUEST_COST_BYTES to save at most its one request); resending all of them can, when it
 * brings the change set to an archive. Identical variants are dropped.
 */
function renameVariants(changes: Change[], remote: Snapshot): Change[][] {
  const renames = changes.filter((c): c is Rename => c.kind === 'rename');
  if (renames.length === 0) return [changes];
  const grouped = movedTogether(renames);
  const small = (r: Rename): boolean => r.entry.size < REQUEST_COST_BYTES;
  const picks: Array<(r: Rename) => boolean> = [
    (r) => small(r) && !grouped.has(r),
    small,
    () => true,
  ];
  const variants = [changes];
  const seen = new Set<string>(['']);
  for (const pick of picks) {
    const chosen = renames.filter(pick);
    const id = chosen.map((r) => r.to).join('\0');
    if (seen.has(id)) continue;
    seen.add(id);
    const resent = new Set(chosen);
    variants.push(resend(changes, remote, (r) => resent.has(r)));
  }
  return variants;
}

function resend(changes: Change[], remote: Snapshot, pick: (r: Rename) => boolean): Change[] {
  return changes.flatMap((c): Change[] => {
    if (c.kind !== 'rename' || !pick(c)) return [c];
    // The rename's source is on the remote with the target's content.
    const base = remote.get(c.from) ?? { path: c.from, hash: c.entry.hash, size: c.entry.size, executable: c.entry.executable };
    return [
      { kind: 'delete', path: c.from, base },
      { kind: 'write', path: c.to, entry: c.entry, create: true },
    ];
  });
}

/** One candidate plan, or null when the layout does not apply to this change set. */
function buildPlan(changes: Change[], remote: Snapshot, layout: Layout, uploadMaxBytes: number): Plan | null {
  const byPath = (a: { path: string }, b: { path: string }): number => comparePaths(a.path, b.path);
  const deletes = changes.filter((c): c is Delete => c.kind === 'delete').sort(byPath);
  const writes = changes.filter((c): c is Write => c.kind === 'write').sort(byPath);
  const renames = changes.filter((c): c is Rename => c.kind === 'rename');
  const chmods = changes.filter((c): c is Chmod => c.kind === 'chmod').sort(byPath);

  if (layout === 'archive+chmod' && chmods.length === 0) return null;
  const archived = layout === 'archive+chmod' ? [...writes, ...chmods].sort(byPath) : writes;
  if (layout !== 'direct' && archived.length < ARCHIVE_MIN_FILES) return null;

  const steps: Step[] = [];
  if (deletes.length > 0) steps.push({ op: 'delete', paths: deletes.map((d) => d.path) });
  for (const s of renameSteps(renames)) steps.push(s);

  /** path -> mode the remote must end with, where it will not already. */
  const modes = new Map<string, string>();
  const wantMode = (path: string, executable: boolean, remoteExecutable: boolean): void => {
    if (executable !== remoteExecutable) modes.set(path, executable ? EXECUTABLE_MODE : REGULAR_MODE);
  };
  for (const r of renames) wantMode(r.to, r.entry.executable, remote.get(r.from)?.executable ?? false);

  if (layout === 'direct') {
    const uploaded = new Set<string>();
    for (const s of writeSteps(writes.map((w) => w.entry), uploadMaxBytes)) {
      steps.push(s);
      if (s.op === 'upload') for (const f of s.files) uploaded.add(f.path);
    }
    // A new file lands 0644; writeMany overwrites in place and keeps the remote's mode; an
    // upload replaces the file (temp file + rename on the node), so it lands 0644 too.
    for (const w of writes) {
      const landsPlain = w.create || uploaded.has(w.path);
      wantMode(w.path, w.entry.executable, landsPlain ? false : (remote.get(w.path)?.executable ?? false));
    }
  } else if (archived.length > 0) {
    for (const files of archiveSteps(archived.map((c) => c.entry), uploadMaxBytes)) steps.push({ op: 'archive', files, bytes: sumSizes(files) });
  }
  if (layout !== 'archive+chmod') for (const c of chmods) modes.set(c.path, c.executable ? EXECUTABLE_MODE : REGULAR_MODE);

  for (const path of [...modes.keys()].sort(comparePaths)) {
    steps.push({ op: 'chmod', path, mode: modes.get(path) as string });
  }
  return summarise(steps, uploadMaxBytes);
}

/** Renames that keep their file name and share a target directory with another such rename. */
function movedTogether(renames: Rename[]): Set<Rename> {
  const byDir = new Map<string, Rename[]>();
  for (const r of renames) {
    if (baseName(r.from) !== baseName(r.to)) continue;
    const dir = parentDir(r.to);
    const group = byDir.get(dir);
    if (group) group.push(r);
    else byDir.set(dir, [r]);
  }
  return new Set([...byDir.values()].filter((group) => group.length >= 2).flat());
}

/**
 * Renames that keep their file name and share a target directory go as one files.move; the
 * rest one files.rename each. Moves first (by directory), then renames (by target).
 */
function renameSteps(renames: Rename[]): Step[] {
  const grouped = movedTogether(renames);
  const byDir = new Map<string, string[]>();
  for (const r of renames) {
    if (!grouped.has(r)) continue;
    const dir = parentDir(r.to);
    const group = byDir.get(dir);
    if (group) group.push(r.from);
    else byDir.set(dir, [r.from]);
  }
  const moves: Step[] = [...byDir.keys()]
    .sort(comparePaths)
    .map((dir) => ({ op: 'move', files: (byDir.get(dir) as string[]).sort(comparePaths), to: dir }));
  const singles: Step[] = renames
    .filter((r) => !grouped.has(r))
    .sort((a, b) => comparePaths(a.to, b.to))
    .map((r) => ({ op: 'rename', from: r.from, to: r.to }));
  return [...moves, ...singles];
}

/**
 * Files (in path order) as archive steps: one for every file that fits an archive part on
 * its own at worst, cut by compressed size when it runs, then one per file that does not
 * (the executor measures it before sending).
 */
function archiveSteps(files: Entry[], uploadMaxBytes: number): Entry[][] {
  const alone = (f: Entry): boolean => archiveBound([f]) > uploadMaxBytes;
  const together = files.filter((f) => !alone(f));
  return [...(together.length > 0 ? [together] : []), ...files.filter(alone).map((f) => [f])];
}

/** How far below the upload limit the executor closes an archive part (ARCHIVE_PART_MARGIN_FRACTION). */
export const archivePartMargin = (uploadMaxBytes: number): number => Math.ceil(uploadMaxBytes * ARCHIVE_PART_MARGIN_FRACTION);

/**
 * The archive parts `files` (in order) need when nothing compresses: consecutive parts
 * each within the limit by archiveBound, a file that cannot alone counting as one part.
 * An upper bound of what the executor sends. It cuts by the real compressed size, which
 * it counts exactly up to its last sync flush and at worst only for what is pending, and
 * keeps its margin free; on data that does not compress it is stricter than one bound of
 * the whole part only by that margin and about 5 bytes per sync flush. So the parts
 * counted here keep TWICE the executor's margin free: the second covers 200k flushes a
 * part at the 100 MB limit.
 */
export function archivePartsAtWorst(files: readonly Entry[], uploadMaxBytes = NODE_UPLOAD_MAX_BYTES): number {
  const margin = 2 * archivePartMargin(uploadMaxBytes);
  let parts = 0;
  let entryBytes = 0;
  for (const f of files) {
    const more = tarEntryBytes(f);
    if (parts === 0 || !partFits(uploadMaxBytes, 0, entryBytes + more, margin)) {
      parts++;
      entryBytes = 0;
    }
    entryBytes += more;
  }
  return parts;
}

/**
 * writeMany batches (first-fit-decreasing), then one upload step per directory; a file over
 * the upload limit in an archive of its own. `entries` are in path order (buildPlan sorts
 * them): the packing order is by size, largest first, ties in path order, and each batch
 * lists its files in path order.
 */
function writeSteps(entries: Entry[], uploadMaxBytes: number): Step[] {
  const inline = (e: Entry): boolean =>
    e.text === true && e.size < TEXT_UPLOAD_THRESHOLD_BYTES && e.size <= WRITE_MANY_BATCH_BYTES;

  const inlined = entries.filter(inline);
  const room: number[] = [];
  const batchOf = new Int32Array(inlined.length);
  for (const i of bySizeDescending(inlined)) {
    const size = (inlined[i] as Entry).size;
    let b = 0;
    while (b < room.length && (room[b] as number) < size) b++;
    if (b === room.length) room.push(WRITE_MANY_BATCH_BYTES);
    batchOf[i] = b;
    room[b] = (room[b] as number) - size;
  }
  // Filled in path order, so each batch is already sorted.
  const batches: Entry[][] = room.map(() => []);
  inlined.forEach((e, i) => (batches[batchOf[i] as number] as Entry[]).push(e));
  const steps: Step[] = batches.map((files) => ({ op: 'writeMany', files, bytes: sumSizes(files) }));

  const byDir = new Map<string, Entry[]>();
  const overLimit: Entry[] = [];
  for (const e of entries) {
    if (inline(e)) continue;
    if (e.size > uploadMaxBytes) {
      overLimit.push(e);
      continue;
    }
    const dir = parentDir(e.path);
    const group = byDir.get(dir);
    if (group) group.push(e);
    else byDir.set(dir, [e]);
  }
  for (const dir of [...byDir.keys()].sort(comparePaths)) {
    const files = (byDir.get(dir) as Entry[]).sort((a, b) => comparePaths(a.path, b.path));
    steps.push({ op: 'upload', dir, files, bytes: sumSizes(files) });
  }
  for (const e of overLimit.sort((a, b) => comparePaths(a.path, b.path))) steps.push({ op: 'archive', files: [e], bytes: e.size });
  return steps;
}

/**
 * Indices of `entries`, largest size first, equal sizes by index. One numeric sort of
 * packed keys instead of a comparator called n log n times (100k files, first call: the
 * comparator sort took 0.17 s of a CPU profile, this 0.05 s).
 */
function bySizeDescending(entries: readonly Entry[]): number[] {
  const n = entries.length;
  const largest = entries.reduce((m, e) => Math.max(m, e.size), 0);
  // (largest - size) * n + index: exact while below 2^53 (inline sizes are at most a few MB).
  if ((largest + 1) * n >= Number.MAX_SAFE_INTEGER) {
    return entries.map((_, i) => i).sort((a, b) => (entries[b] as Entry).size - (entries[a] as Entry).size || a - b);
  }
  const keys = new Float64Array(n);
  entries.forEach((e, i) => (keys[i] = (largest - e.size) * n + i));
  keys.sort();
  return Array.from(keys, (k) => k % n);
}

/**
 * API requests per step: uploadUrl for an upload; uploadUrl + decompress per archive part
 * (at worst); one call otherwise. Node requests: one per upload, one per archive part.
 */
function stepRequests(step: Step, uploadMaxBytes: number): { api: number; node: number } {
  if (step.op === 'archive') {
    const parts = archivePartsAtWorst(step.files, uploadMaxBytes);
    return { api: 2 * parts, node: parts };
  }
  return { api: 1, node: step.op === 'upload' ? 1 : 0 };
}

function summarise(steps: Step[], uploadMaxBytes: number): Plan {
  let requests = 0;
  let bytes = 0;
  let nodeRequests = 0;
  for (const s of steps) {
    const r = stepRequests(s, uploadMaxBytes);
    requests += r.api;
    nodeRequests += r.node;
    if (s.op === 'writeMany' || s.op === 'upload' || s.op === 'archive') bytes += s.bytes;
  }
  return { steps, requests, bytes, nodeRequests };
}

function sumSizes(files: Entry[]): number {
  return files.reduce((n, e) => n + e.size, 0);
}
