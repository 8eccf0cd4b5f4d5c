import { spawnSync } from 'node:child_process';

/** Creates a FIFO with the coreutils tool (Node has no mkfifo); false where that is unavailable. */
export function mkfifoSync(file: string): boolean {
  return spawnSync('mkfifo', [file]).status === 0;
}
