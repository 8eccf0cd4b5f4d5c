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
while (Date.now() < Number(startAt)) {
  // spin: a timer would add its own jitter
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
