/**
 * The process groups the emulator has spawned and not yet seen die. Children run
 * detached (their own group, so a stop reaches the app's own children too); the
 * price is that they would outlive the emulator. This registry kills every tracked
 * group, synchronously, when the emulator's process exits for any reason Node still
 * sees ('exit' runs after process.exit() and after the event loop drains; a fatal
 * signal skips it, so the CLI turns SIGINT/SIGTERM into process.exit()).
 *
 * SIGKILL (or a crash of Node itself) skips every handler. For that, each running
 * emulator keeps the live groups in a record in its data folder (RECORD_FILE), with
 * the owning process; the next emulator started on that folder (or, for a temporary
 * folder, any emulator starting on this machine) kills the groups of a record whose
 * owner is gone. A pid alone could name a recycled process, so each entry carries its
 * process's start (processStart) and is killed only when that still matches.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { liveGroupStarts, processStart } from './proc-stats.js';

/** The record's name in a data folder. */
export const RECORD_FILE = 'children.json';

/** pgid -> the leader's start (null where /proc cannot tell). */
const live = new Map<number, number | null>();
/** Record files of the emulators running in this process. */
const records = new Set<string>();
let hooked = false;

interface GroupRecord {
  owner: { pid: number; start: number | null };
  groups: Array<{ pgid: number; start: number | null }>;
}

/** Sends `signal` to every member of group `pgid`; false when none was left. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function trackGroup(pgid: number): void {
  live.set(pgid, processStart(pgid));
  if (!hooked) {
    hooked = true;
    process.on('exit', killAllTrackedGroups);
  }
  writeRecords();
}

export function untrackGroup(pgid: number): void {
  if (live.delete(pgid)) writeRecords();
}

/** Kills every group still tracked. Synchronous, so it is safe inside an 'exit' handler. */
export function killAllTrackedGroups(): void {
  for (const pgid of live.keys()) killGroup(pgid, 'SIGKILL');
  live.clear();
  writeRecords();
}

/**
 * Starts keeping this process's live groups in `dataDir`'s record; the returned function
 * stops it and removes the record (the emulator closed: its groups are gone or going).
 */
export function recordGroupsIn(dataDir: string): () => void {
  const file = path.join(dataDir, RECORD_FILE);
  records.add(file);
  writeRecord(file);
  return () => {
    records.delete(file);
    rmSync(file, { force: true });
  };
}

function writeRecords(): void {
  for (const file of records) writeRecord(file);
}

/** Temp file + rename, so a reader sees a whole record. A folder removed under us is not the emulator's problem. */
function writeRecord(file: string): void {
  const record: GroupRecord = {
    owner: { pid: process.pid, start: processStart(process.pid) },
    groups: [...live].map(([pgid, start]) => ({ pgid, start })),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(record));
    renameSync(tmp, file);
  } catch {
    rmSync(tmp, { force: true });
  }
}

function readRecord(file: string): GroupRecord | null {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as GroupRecord;
    if (typeof r?.owner?.pid !== 'number' || !Array.isArray(r.groups)) return null;
    return r;
  } catch {
    return null;
  }
}

/** Whether the process that wrote a record still runs (same pid, same start). */
function ownerAlive(owner: GroupRecord['owner']): boolean {
  const start = processStart(owner.pid);
  if (start !== null || owner.start !== null) return start !== null && start === owner.start;
  try {
    process.kill(owner.pid, 0); // no /proc: the pid alone
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Kills what a gone owner's record lists: a group whose leader still runs with the start
 * recorded, or whose leader died but whose members (started after it) run on. A pid
 * reused since is left alone. Returns the pgids signalled; null when there is no readable
 * record or its owner still runs.
 */
function reapRecord(file: string): number[] | null {
  const record = readRecord(file);
  if (record === null || ownerAlive(record.owner)) return null;
  const killed: number[] = [];
  for (const g of record.groups) {
    if (typeof g?.pgid !== 'number' || g.pgid <= 1) continue;
    const leader = processStart(g.pgid);
    const ours = leader !== null
      ? g.start === null || leader === g.start
      : liveGroupStarts(g.pgid).some((s) => g.start === null || s >= g.start);
    if (ours && killGroup(g.pgid, 'SIGKILL')) killed.push(g.pgid);
  }
  rmSync(file, { force: true });
  return killed;
}

/**
 * Before an emulator starts on `dataDir`: kills the app processes a killed emulator left
 * there, and those of killed emulators' temporary folders (`tmpPrefix` in `tmpRoot`),
 * which no later start would otherwise find; such a folder is removed, as its emulator
 * would have on close. Returns the pgids signalled. SIGKILL acts asynchronously: the
 * caller waits for the groups to drain (drainGroups).
 */
export function reapOrphans(dataDir: string, tmp: { root: string; prefix: string }): number[] {
  const killed = reapRecord(path.join(dataDir, RECORD_FILE)) ?? [];
  let names: string[] = [];
  try {
    names = readdirSync(tmp.root).filter((n) => n.startsWith(tmp.prefix));
  } catch {
    // no temporary folder to sweep
  }
  for (const name of names) {
    const dir = path.join(tmp.root, name);
    const file = path.join(dir, RECORD_FILE);
    if (path.resolve(dir) === path.resolve(dataDir) || !existsSync(file)) continue;
    const gone = reapRecord(file);
    if (gone === null) continue; // its emulator still runs
    killed.push(...gone);
    rmSync(dir, { recursive: true, force: true });
  }
  return killed;
}

/** Waits (bounded) until the groups have no running member, so their ports are free again. */
export async function drainGroups(pgids: number[], maxMs: number): Promise<void> {
  const deadline = performance.now() + maxMs;
  let left = pgids.filter((g) => liveGroupStarts(g).length > 0);
  while (left.length > 0 && performance.now() < deadline) {
    for (const g of left) killGroup(g, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 10));
    left = left.filter((g) => liveGroupStarts(g).length > 0);
  }
}
