import cliProgress from 'cli-progress';
import type { ProgressFn } from '../sync/execute.js';

/**
 * A progress bar on stderr for transfers, only on a TTY and only for transfers big
 * enough to take a moment: short pushes stay quiet and exact.
 */
const MIN_BYTES_FOR_BAR = 1024 * 1024;

export function progressBar(enabled: boolean): { onProgress: ProgressFn | undefined; stop: () => void } {
  if (!enabled || !process.stderr.isTTY) return { onProgress: undefined, stop: () => undefined };
  let bar: cliProgress.SingleBar | null = null;
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
