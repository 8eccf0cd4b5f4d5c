import { readdirSync, readFileSync } from 'node:fs';

/**
 * Resource figures of a process group read from Linux /proc, the emulator's stand-in
 * for the container's cgroup counters. A group, not one pid, because `sh -c "npm start"`
 * puts the app two processes below the one we spawned. Elsewhere (no /proc) the
 * figures are 0: they are informative, never load-bearing.
 */

/** USER_HZ: the unit of utime/stime in /proc/<pid>/stat. 100 on every Linux ABI Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** Readings closer together than this reuse the previous figure (a tick is 10 ms). */
const MIN_WINDOW_SECONDS = 0.2;

export interface GroupSample {
  /** Sum of VmRSS over the group's live processes, in kB. */
  rssKB: number;
  /** Sum of utime + stime over the group's live processes, in clock ticks. */
  cpuTicks: number;
}

/** Parses /proc/<pid>/stat: the fields after the parenthesised command name (which may hold spaces and parens). */
function statFields(pid: string): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * When `pid` started, in clock ticks since boot (/proc/<pid>/stat field 22), or null when it
 * is not running (gone, a zombie, or no /proc). With the pid it names one process: a pid
 * reused later has a later start.
 */
export function processStart(pid: number): number | null {
  const fields = statFields(String(pid));
  if (fields === null || fields[0] === 'Z') return null;
  const start = Number(fields[19]);
  return Number.isFinite(start) ? start : null;
}

/** Like liveGroupMembers, with each member's start (processStart). */
export function liveGroupStarts(pgid: number): number[] {
  return liveGroupMembers(pgid).map((pid) => processStart(pid)).filter((s): s is number => s !== null);
}

function rssKB(pid: string): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** Pids of the members of process group `pgid` that are still running (zombies excluded: they are dead, only unreaped). */
export function liveGroupMembers(pgid: number): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const pid of pids) {
    const fields = statFields(pid);
    if (fields !== null && Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(pid));
  }
  return members;
}

/** Sums the live members of process group `pgid`. Synchronous: a few small reads per process on the machine. */
export function sampleProcessGroup(pgid: number): GroupSample {
  const sample: GroupSample = { rssKB: 0, cpuTicks: 0 };
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return sample;
  }
  for (const pid of pids) {
    const fields = statFields(pid);
    // After the name: [0] state, [2] pgrp, [11] utime, [12] stime. Zombies hold no memory.
    if (fields === null || Number(fields[2]) !== pgid || fields[0] === 'Z') continue;
    sample.rssKB += rssKB(pid);
    sample.cpuTicks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return sample;
}

/**
 * CPU use of a process group as a percentage of one core, averaged between consecutive
 * readings (the first reading averages since `since`). Rough by design: members that
 * exited between readings take their ticks with them.
 */
export class CpuMeter {
  private lastTicks = 0;
  private lastAt: number;

  constructor(since: number = performance.now()) {
    this.lastAt = since;
  }

  private lastPercent = 0;

  percent(cpuTicks: number, now: number = performance.now()): number {
    const elapsedSeconds = (now - this.lastAt) / 1000;
    // Over a window of a few ticks one tick more or less swings the figure wildly: keep the last one.
    if (elapsedSeconds < MIN_WINDOW_SECONDS) return this.lastPercent;
    const deltaTicks = Math.max(0, cpuTicks - this.lastTicks);
    this.lastTicks = cpuTicks;
    this.lastAt = now;
    this.lastPercent = Math.round((deltaTicks / CLOCK_TICKS_PER_SECOND / elapsedSeconds) * 1000) / 10;
    return this.lastPercent;
  }
}
