import type { RunningEmulator } from '../../src/emulator/index.js';
import { loadConfig } from '../../src/config/config.js';
import { openSession } from '../../src/sync/session.js';
import { push, type PushOptions } from '../../src/sync/push/push.js';

/** The environment the CLI reads, pointing at one emulator. */
export const envFor = (emu: Pick<RunningEmulator, 'apiKey' | 'baseUrl' | 'deploymentId'>) => ({
  HOSTSYNC_API_KEY: emu.apiKey,
  HOSTSYNC_BASE_URL: emu.baseUrl,
  HOSTSYNC_DEPLOYMENT: emu.deploymentId,
});

/** One in-process push of `dir` to the emulator (no apply unless asked), with the client's request counts. */
export async function pushOnce(emu: RunningEmulator, dir: string, opts: PushOptions = {}) {
  const config = await loadConfig({ flags: { dir }, env: envFor(emu) });
  const session = await openSession(config);
  try {
    const report = await push(session, { noApply: true, ...opts });
    return { report, stats: session.client.stats() };
  } finally {
    await session.close();
  }
}
