import type { Command } from 'commander';
import { runTrust } from '../../app/trust.js';
import { globalFlags } from '../context.js';
import { emitResult } from '../output.js';

/** `hostsync trust`: lets the key go to the address hostsync.json names, from now on. */
export async function trustCommand(cmd: Command): Promise<number> {
  const g = globalFlags(cmd);
  const outcome = await runTrust({ ...(g.dir !== undefined ? { dir: g.dir } : {}), ...(g.target !== undefined ? { target: g.target } : {}) });
  return emitResult(outcome, g.json ?? false, (r) => `trusted ${r.origin} to receive HOSTSYNC_API_KEY (recorded in ${r.recordFile})`);
}
