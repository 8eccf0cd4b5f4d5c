/**
 * Opt-in: with HOSTSYNC_TEST_CPU_LOG=FILE set, vitest.config.ts loads this into every test
 * file, and each file appends one JSON line to FILE when it ends: the worker's own CPU
 * seconds while the file ran (the in-process emulator and library work) and its children's
 * (the CLI, app processes, npm, git: every child the worker has waited for, with their own
 * waited-for children). Linux only (/proc). Wall time is kept beside it, but it is a load
 * figure; CPU is what the CI budget is made of (docs/decisions.md, "CI on Node 20, 22 and 24").
 *
 *   HOSTSYNC_TEST_CPU_LOG=/tmp/cpu.jsonl npx vitest run
 *   node -e "for (const l of require('fs').readFileSync('/tmp/cpu.jsonl','utf8').trim().split('\n')) { const r = JSON.parse(l); console.log((r.self + r.children).toFixed(1), r.file); }" | sort -rn | head
 *
 * A child still running when its file ends (one left behind) is counted by the file whose
 * window it is reaped in, or by none.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';

const TICKS = 100; // USER_HZ: /proc reports CPU in clock ticks of 1/100 s on Linux.

function cpu(): { self: number; children: number; at: number } {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces), from field 3 on.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { self: (Number(f[11]) + Number(f[12])) / TICKS, children: (Number(f[13]) + Number(f[14])) / TICKS, at: Date.now() };
}

let start: ReturnType<typeof cpu> | undefined;
let file = '';
// vitest passes the file's suite as the second argument of a file-level beforeAll (the first
// must be a destructuring pattern: vitest reads it for fixtures).
beforeAll(({}, suite) => {
  start = cpu();
  file = ((suite as { file?: { filepath?: string } } | undefined)?.file?.filepath ?? '').replace(/^.*?\/test\//, 'test/');
});
afterAll(() => {
  const log = process.env.HOSTSYNC_TEST_CPU_LOG;
  if (!log || !start) return;
  const end = cpu();
  const round = (s: number): number => Math.round(s * 100) / 100;
  appendFileSync(log, `${JSON.stringify({ file, pid: process.pid, self: round(end.self - start.self), children: round(end.children - start.children), wallSeconds: round((end.at - start.at) / 1000) })}\n`);
});
