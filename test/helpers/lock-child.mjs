#!/usr/bin/env node
/**
 * One process racing for hostsync's directory lock (test/state/lock.test.ts).
 *
 *   node lock-child.mjs DIR START_AT_MS
 *
 * Waits until wall-clock START_AT_MS so all racers start together, then tries
 * acquireLock once and prints one line: `won` or `refused <message>`. A winner
 * holds the lock until its stdin closes, so the parent sees every verdict first.
 */
import { acquireLock } from '../../dist/state/lock.js';

const [dir, startAt] = process.argv.slice(2);
// Asleep until just before START_AT_MS, then spinning the rest: a timer alone would add its
// own jitter, and spinning all the parent's lead time (1.5 s, for every racer to be started)
// cost up to that much CPU per racer, 13 s for the test's 32 racers on an idle machine.
const SPIN_MS = 30;
const asleepMs = Number(startAt) - SPIN_MS - Date.now();
if (asleepMs > 0) await new Promise((resolve) => setTimeout(resolve, asleepMs));
while (Date.now() < Number(startAt)) {
  // spin
}
try {
  const lock = await acquireLock(dir, 'push');
  process.stdout.write('won\n');
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await lock.release();
    process.exit(0);
  });
} catch (err) {
  process.stdout.write(`refused ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(0);
}
