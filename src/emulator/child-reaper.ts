/**
 * The process groups the emulator has spawned and not yet seen die. Children run
 * detached (their own group, so a stop reaches the app's own children too); the
 * price is that they would outlive the emulator. This registry kills every tracked
 * group, synchronously, when the emulator's process exits for any reason Node still
 * sees ('exit' runs after process.exit() and after the event loop drains; a fatal
 * signal skips it, so the CLI turns SIGINT/SIGTERM into process.exit()).
 */
const live = new Set<number>();
let hooked = false;

/** Sends `signal` to every member of group `pgid`; false when none was left. */
export function killGroup(pgid: number, signal: NodeJS.Signals = 'SIGKILL'): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

export function trackGroup(pgid: number): void {
  live.add(pgid);
  if (!hooked) {
    hooked = true;
    process.on('exit', killAllTrackedGroups);
  }
}

export function untrackGroup(pgid: number): void {
  live.delete(pgid);
}

/** Kills every group still tracked. Synchronous, so it is safe inside an 'exit' handler. */
export function killAllTrackedGroups(): void {
  for (const pgid of live) killGroup(pgid, 'SIGKILL');
  live.clear();
}
