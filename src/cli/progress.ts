import { createRequire } from 'node:module';
import type CliProgress from 'cli-progress';
import type { ProgressFn } from '../sync/push/execute.js';
import { isCI } from './ci.js';

// CommonJS packages are required, not imported: see docs/decisions.md, "Start-up".
const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;

/**
 * Progress of a push on stderr, only for transfers big enough to take a moment: short
 * pushes stay quiet and exact. On a terminal, a bar; in CI or without a terminal, coarse
 * lines (a bar redrawn with carriage returns turns a CI log into noise): the size when
 * the transfer starts, every quarter, then the apply and the health wait.
 */
const MIN_BYTES_FOR_BAR = 1024 * 1024;
const COARSE_STEP = 0.25;

export interface PushProgress {
  onProgress: ProgressFn | undefined;
  stop: () => void;
}

export function progressBar(enabled: boolean, env: NodeJS.ProcessEnv = process.env, tty = process.stderr.isTTY === true): PushProgress {
  if (!enabled) return { onProgress: undefined, stop: () => undefined };
  if (!tty || isCI(env)) return coarseProgress((line) => process.stderr.write(`hostsync: ${line}\n`));
  let bar: CliProgress.SingleBar | null = null;
  const stop = (): void => {
    bar?.stop();
    bar = null;
  };
  const onProgress: ProgressFn = (e) => {
    if (e.phase !== 'transfer') {
      if (e.phase === 'verify' || e.phase === 'apply') stop();
      return;
    }
    if (!bar && e.total >= MIN_BYTES_FOR_BAR) {
      bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: 'pushing [{bar}] {percentage}% | {value}/{total} bytes', hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(e.total, 0);
    }
    bar?.update(Math.min(e.done, e.total));
  };
  return { onProgress, stop };
}

const mb = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** One line per step of a big push: the transfer's start and each quarter, then verify, apply and health. */
export function coarseProgress(say: (line: string) => void): PushProgress {
  let big = false;
  let nextStep = COARSE_STEP;
  const onProgress: ProgressFn = (e) => {
    if (e.phase === 'transfer') {
      if (!big && e.total >= MIN_BYTES_FOR_BAR) {
        big = true;
        say(`pushing ${mb(e.total)}`);
      }
      if (!big || e.total === 0) return;
      const share = Math.min(e.done, e.total) / e.total;
      if (share < nextStep) return;
      while (nextStep <= share) nextStep += COARSE_STEP;
      say(`pushed ${Math.round(Math.min(share, 1) * 100)}% (${mb(Math.min(e.done, e.total))} of ${mb(e.total)})`);
      return;
    }
    if (!big) return;
    if (e.phase === 'verify') say('verifying');
    else if (e.phase === 'apply') say('applying');
    else if (e.phase === 'health') say('waiting for the app to come up');
  };
  return { onProgress, stop: () => undefined };
}

/**
 * Files restored by a rollback (one files.restore each, at the API's 120 requests a minute:
 * 500 files take ~8 minutes): a bar of files on a terminal past ROLLBACK_BAR_MIN_FILES, a line
 * every quarter in CI or without one.
 */
const ROLLBACK_BAR_MIN_FILES = 20;

export function restoreProgress(enabled: boolean, env: NodeJS.ProcessEnv = process.env, tty = process.stderr.isTTY === true): PushProgress {
  if (!enabled) return { onProgress: undefined, stop: () => undefined };
  let bar: CliProgress.SingleBar | null = null;
  let nextStep = COARSE_STEP;
  const coarse = !tty || isCI(env);
  const stop = (): void => {
    bar?.stop();
    bar = null;
  };
  const onProgress: ProgressFn = (e) => {
    if (e.phase !== 'transfer') {
      stop();
      return;
    }
    if (e.total < ROLLBACK_BAR_MIN_FILES) return;
    if (coarse) {
      if (e.done === 0) process.stderr.write(`hostsync: restoring ${e.total} files (2 requests each)\n`);
      while (e.done / e.total >= nextStep) {
        process.stderr.write(`hostsync: restored ${Math.round(nextStep * 100)}%\n`);
        nextStep += COARSE_STEP;
      }
      return;
    }
    if (!bar) {
      bar = new cliProgress.SingleBar(
        { stream: process.stderr, format: 'restoring [{bar}] {value}/{total} files', hideCursor: true, clearOnComplete: true },
        cliProgress.Presets.shades_classic,
      );
      bar.start(e.total, 0);
    }
    bar.update(e.done);
  };
  return { onProgress, stop };
}
