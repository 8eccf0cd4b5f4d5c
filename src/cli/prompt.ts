import { createInterface } from 'node:readline/promises';
import { usageError } from '../errors.js';
import { isCI } from './ci.js';

/**
 * Whether the user can be asked: both ends are a terminal and this is not CI. Commands
 * that would ask take a flag instead when this is false, and say which.
 */
export function canPrompt(json = false): boolean {
  return !json && process.stdin.isTTY === true && process.stdout.isTTY === true && !isCI();
}

/**
 * Asks for one of `count` numbered choices (already printed by the caller) until the
 * answer is a number in range. Ctrl-C or end of input cancels with a usage error.
 */
export async function askChoice(question: string, count: number): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const ac = new AbortController();
  rl.on('SIGINT', () => ac.abort());
  rl.on('close', () => ac.abort());
  try {
    for (;;) {
      const answer = (await rl.question(`${question} [1-${count}]: `, { signal: ac.signal })).trim();
      const n = Number(answer);
      if (Number.isInteger(n) && n >= 1 && n <= count) return n - 1;
      process.stdout.write(`  answer with a number from 1 to ${count}\n`);
    }
  } catch {
    throw usageError('cancelled: nothing was changed');
  } finally {
    rl.close();
  }
}

/** Asks a yes/no question; only "y" or "yes" is a yes. Ctrl-C or end of input is a no. */
export async function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const ac = new AbortController();
  rl.on('SIGINT', () => ac.abort());
  rl.on('close', () => ac.abort());
  try {
    const answer = (await rl.question(`${question} [y/N]: `, { signal: ac.signal })).trim().toLowerCase();
    return answer === 'y' || answer === 'yes';
  } catch {
    return false;
  } finally {
    rl.close();
  }
}
