import type { Entry, Snapshot } from '../model/types.js';

/**
 * What hostsync remembers per deployment, in `.hostsync/<deployment>/state.bin`:
 * - base: what the last successful sync left on the remote (the B of the three-way merge);
 * - remote: the last full files.index we read, with its digest, so an unchanged remote
 *   (`{unchanged: true}`) can be answered from here in ONE request.
 * Invariant: base is only written after the pushed files were verified against a fresh index.
 * A state that is missing, corrupt, or of another version is treated as absent: rebuilt
 * from the remote, never trusted, and never a reason to delete anything.
 * The API key is never part of it.
 */
export interface RemoteCache {
  digest: string;
  /** Identifies the ignore list and hashMaxBytes the digest was computed with. */
  requestKey: string;
  snapshot: Snapshot;
  symlinks: string[];
  leftovers: string[];
  /** The base record the read listed (RemoteRead.record); absent in caches of older versions. */
  record?: Entry | null;
}

export interface SyncState {
  base: Snapshot | null;
  remote: RemoteCache | null;
  /**
   * Set before a push transfers anything, cleared when deployments.apply has answered:
   * a push killed (or failing) in between leaves it set, so the next push applies even
   * when it finds nothing left to transfer.
   */
  applyPending: boolean;
}
