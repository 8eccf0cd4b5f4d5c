/**
 * The one way a command takes in the writes a killed `watch` left unverified
 * (state/unverified.ts): every command that loads the base and reads the remote folds the
 * record in before it merges, so hostsync's own bytes are never reported as a conflict
 * with itself.
 *
 * Per recorded path the read covers: the remote holds exactly what watch sent -> the base
 * takes it (as a restarted watch would); anything else -> the base stays and the three-way
 * merge decides (conflict or drift, never an overwrite). Paths the read does not cover
 * are left for a later read.
 *
 * Once a command has saved a base from its read, the record's paths inside that read are
 * settled (taken in, or judged by the merge) and are dropped from it: an entry left behind
 * could later match a remote that went back to those bytes, and hide that change.
 */
import type { Entry, Snapshot } from '../model/types.js';
import { UnverifiedStore, type Expectation } from '../state/unverified.js';
import type { Session } from './session.js';

/** Does the remote entry hold what watch sent? */
export function landed(exp: Expectation, r: Entry | undefined): boolean {
  if (exp === null) return r === undefined;
  if (!r || r.executable !== exp.executable) return false;
  // A file above hashMaxBytes comes without a hash: same size is taken as ours (resolveRemote's presumption).
  if (r.hash === null) return exp.size !== null && r.size === exp.size;
  return r.hash === exp.hash && (exp.size === null || r.size === exp.size);
}

/** Takes a landed write into `base`: the remote's entry, with the hash we sent where its listing has none. */
export function takeLanded(base: Snapshot, path: string, exp: Expectation, r: Entry | undefined): void {
  if (exp === null) base.delete(path);
  else base.set(path, { path, hash: r!.hash ?? exp.hash, size: r!.size, executable: exp.executable });
}

export interface FoldedBase {
  /** The base with every landed write taken in (a copy when anything changed; null stays null). */
  base: Snapshot | null;
  /** The recorded paths the read covered: what settleUnverified drops once a base is saved. */
  covered: string[];
}

const recordOf = (session: Session): UnverifiedStore => new UnverifiedStore(session.stateDir, session.config.deploymentId);

/**
 * `base` with the unverified writes the read `remote` shows landed taken in. `covers` says
 * which paths the read saw (default: all of them, a whole-tree read). Without a base the
 * record is moot: a first sync compares everything anyway.
 */
export async function foldUnverified(session: Session, base: Snapshot | null, remote: Snapshot, covers: (path: string) => boolean = () => true): Promise<FoldedBase> {
  if (base === null) return { base, covered: [] };
  const record = await recordOf(session).load();
  if (record.size === 0) return { base, covered: [] };
  let out: Snapshot | null = null;
  const covered: string[] = [];
  for (const [p, exp] of record) {
    if (!covers(p)) continue;
    covered.push(p);
    const r = remote.get(p);
    if (!landed(exp, r)) continue;
    out ??= new Map(base);
    takeLanded(out, p, exp, r);
  }
  return { base: out ?? base, covered };
}

/** After a base was saved from the read: the covered paths leave the record (none left: the file goes). */
export async function settleUnverified(session: Session, covered: readonly string[]): Promise<void> {
  if (covered.length === 0) return;
  const store = recordOf(session);
  const record = await store.load();
  for (const p of covered) record.delete(p);
  await store.save(record);
}
