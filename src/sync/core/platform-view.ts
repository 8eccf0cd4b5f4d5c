/**
 * The local tree as the sync core compares it on this platform (local/platform.ts):
 * keyed by wire names (NFC, local/names.ts), and, on a file system without executable
 * bits, with each file's bit taken from what the deployment has. Windows reads every file
 * as not executable; compared as read, a push would take the bit off every script on the
 * deployment (a start.sh that no longer runs). An unknown bit is not a change: it equals
 * the base's, or on a first sync the remote's, and a new file is not executable.
 */
import { knownEqual } from '../../model/lazy-snapshot.js';
import type { Snapshot } from '../../model/types.js';
import { toWireSnapshot } from '../../local/names.js';
import type { Platform } from '../../local/platform.js';

export function platformView(local: Snapshot, base: Snapshot | null, remote: Snapshot, platform: Platform | undefined): Snapshot {
  const wire = toWireSnapshot(local);
  // Known equal to the base: every bit is the base's already. (A scan's delta over the base
  // is not: there, every executable file of the base is a change of bit, taken back below.)
  if (!platform?.noExec || knownEqual(wire, base)) return wire;
  let out: Snapshot | null = null;
  for (const [k, e] of wire) {
    const executable = base?.get(k)?.executable ?? remote.get(k)?.executable ?? false;
    if (executable === e.executable) continue;
    out ??= new Map(wire);
    out.set(k, { ...e, executable });
  }
  return out ?? wire;
}

/** Sessions that said the note already: a watch daemon's pushes share one session. */
const noted = new WeakSet<object>();

/**
 * The one line a push on a no-exec file system says when the deployment has executable
 * files it keeps; null otherwise, and once said for `once` (a session), null after.
 */
export function keptBitsNote(view: Snapshot, platform: Platform | undefined, once?: object): string | null {
  if (!platform?.noExec || (once !== undefined && noted.has(once))) return null;
  let n = 0;
  for (const e of view.values()) if (e.executable) n++;
  if (n === 0) return null;
  if (once !== undefined) noted.add(once);
  return `this file system keeps no executable bits: the deployment's are kept as they are (${n} executable file(s)), never taken off; see docs/platforms.md`;
}
