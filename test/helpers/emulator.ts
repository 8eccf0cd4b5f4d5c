/**
 * One emulator for a test file, its rate limits lifted (many pushes a minute; the client's own
 * pacing is lifted too, per test: ownBudgetPerTest), and its deployment's volume emptied
 * before each test, so no test meets what an earlier one pushed. `current()` is the running
 * emulator (set in beforeAll); `dataDir()` its data folder (volumes and files.history).
 */
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ownBudgetPerTest } from './budget.js';
import { tempDir } from './tree.js';

export function emulatorPerFile(): { current: () => RunningEmulator; dataDir: () => string } {
  let emu: RunningEmulator | undefined;
  let vol: { dir: string; cleanup: () => Promise<void> } | undefined;
  beforeAll(async () => {
    vol = await tempDir('hostsync-emu-');
    emu = await startEmulator({ dataDir: vol.dir, rateLimit: 1_000_000, userRateLimit: 1_000_000 });
  });
  ownBudgetPerTest();
  afterAll(async () => {
    await emu?.close();
    await vol?.cleanup();
  });
  beforeEach(async () => {
    for (const name of await readdir(emu!.volume)) await rm(path.join(emu!.volume, name), { recursive: true, force: true });
  });
  return { current: () => emu!, dataDir: () => vol!.dir };
}
