/**
 * `hostsync emulator`: starts the emulator, prints ONE JSON ready line on stdout
 * (DESIGN.md, Interfaces) and runs until SIGINT/SIGTERM, then stops the server and
 * every app process it started.
 */
import { startEmulator, type EmulatorOptions } from './index.js';

export async function runEmulatorCommand(opts: EmulatorOptions): Promise<void> {
  const emu = await startEmulator(opts);
  process.stdout.write(emu.readyLine() + '\n');
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      emu.close().then(resolve, (err: unknown) => {
        process.stderr.write(`[emulator] error while closing: ${(err as Error).message}\n`);
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
