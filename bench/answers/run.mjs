#!/usr/bin/env node
// Cost of checking API answers (issue 12, item 11): prints figures, asserts nothing.
//
//   npm run build && node bench/answers/run.mjs [--entries 10000,100000] [--runs 15]
//
// A files.index answer of N entries as the transport sees it (JSON text): the baseline is
// what the client did before the check, JSON.parse alone; the contender is JSON.parse plus
// checkAnswer against api/schemas.ts (what every answer now takes). Median of the runs after
// a warm-up, since the machine is shared and noisy. Also: the time to load valibot and the
// schemas, which every CLI start now pays once.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { entries: { type: 'string', default: '10000,100000' }, runs: { type: 'string', default: '15' } },
});
const RUNS = Math.max(3, Number(args.runs));

const loadStart = performance.now();
const S = await import(new URL('../../dist/api/schemas.js', import.meta.url).href);
const loadMs = performance.now() - loadStart;
const { checkAnswer } = await import(new URL('../../dist/remote/answer.js', import.meta.url).href);

function answerText(n) {
  const entries = [];
  for (let i = 0; i < n; i++) {
    entries.push({
      path: `src/module-${i % 300}/part-${i % 17}/file-${i}.js`, type: 'file', sizeBytes: (i * 7919) % 200_000,
      modifiedAt: '2026-11-23T10:00:00.000Z', mode: '0644', hash: (0x1234567890abn + BigInt(i)).toString(16).padStart(16, '0'),
    });
  }
  return JSON.stringify({ unchanged: false, digest: 'd'.repeat(16), truncated: false, entries });
}

function median(f) {
  for (let i = 0; i < 3; i++) f();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    f();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

console.log(`valibot + schemas loaded in ${loadMs.toFixed(1)} ms (once per process)`);
console.log('entries   JSON.parse (baseline)   JSON.parse + check   check alone   added');
for (const n of args.entries.split(',').map(Number)) {
  const text = answerText(n);
  const parsed = JSON.parse(text);
  const base = median(() => JSON.parse(text));
  const both = median(() => checkAnswer('files.index', S.IndexResult, JSON.parse(text), { status: 200 }));
  const check = median(() => checkAnswer('files.index', S.IndexResult, parsed, { status: 200 }));
  console.log(
    `${String(n).padStart(7)}   ${base.toFixed(1).padStart(12)} ms   ${both.toFixed(1).padStart(15)} ms   ${check.toFixed(1).padStart(8)} ms   ${((check / base) * 100).toFixed(0).padStart(4)} %  (${(text.length / 1e6).toFixed(1)} MB of JSON)`,
  );
}
