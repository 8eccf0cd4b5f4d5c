/**
 * One normal form for names: NFC on the wire (and in the base), the local form on disk.
 * macOS hands out names in NFD ("cafe\u0301.txt"); the deployment (Linux) keeps whatever
 * bytes were written, usually NFC. Compared raw, one file would be two: a delete and an add
 * on every push. So the local snapshot is keyed by the wire name, and an entry whose disk
 * name differs carries it (Entry.local) for whatever reads or writes the disk.
 *
 * Only names with a non-ASCII character can change under normalisation: the scan's paths
 * are checked with one regex test each, and a tree of ASCII names is returned as it is.
 */
import { LazySnapshot } from '../model/lazy-snapshot.js';
import { ancestors } from '../model/paths.js';
import type { Snapshot } from '../model/types.js';

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

/** The wire form of a local relative path. */
export const wireName = (rel: string): string => (NON_ASCII.test(rel) ? rel.normalize('NFC') : rel);

/**
 * `local` keyed by wire names. The same map when no name changes (every ASCII tree, and a
 * LazySnapshot: known equal to a base already keyed so, or a scan's delta over one, whose
 * paths the scan took only in their wire form). When the disk holds both
 * forms of one name (possible on Linux), each keeps its own name: they are two files.
 */
export function toWireSnapshot(local: Snapshot): Snapshot {
  if (local instanceof LazySnapshot) return local;
  let changed = false;
  for (const k of local.keys()) {
    if (NON_ASCII.test(k) && k.normalize('NFC') !== k) {
      changed = true;
      break;
    }
  }
  if (!changed) return local;
  const out: Snapshot = new Map();
  for (const [k, e] of local) {
    const w = wireName(k);
    if (w === k || local.has(w)) out.set(k, e);
    else out.set(w, { ...e, path: w, local: k });
  }
  return out;
}

/**
 * Wire path -> disk path, from a wire-keyed local snapshot: a file the disk already has
 * keeps its disk name, a new file under a folder the disk names differently lands in that
 * folder, anything else takes the wire name (NFC).
 */
export function diskNamer(local: Snapshot): (wire: string) => string {
  const files = new Map<string, string>();
  const dirs = new Map<string, string>();
  for (const e of local.values()) {
    if (e.local === undefined) continue;
    files.set(e.path, e.local);
    const wireDirs = ancestors(e.path);
    const diskDirs = ancestors(e.local);
    for (let i = 0; i < wireDirs.length && i < diskDirs.length; i++) if (wireDirs[i] !== diskDirs[i]) dirs.set(wireDirs[i]!, diskDirs[i]!);
  }
  if (files.size === 0) return (wire) => wire;
  return (wire) => {
    const known = files.get(wire);
    if (known !== undefined) return known;
    for (const dir of ancestors(wire)) {
      const d = dirs.get(dir);
      if (d !== undefined) return d + wire.slice(dir.length);
    }
    return wire;
  };
}
