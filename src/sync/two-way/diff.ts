/**
 * `hostsync diff`: local against remote for every path where they differ, classified by
 * the push reconcile (who changed it since the last sync). Text files get a unified diff
 * (jsdiff), old side = the deployment, new side = the local file, as `git diff` shows the
 * working tree against what was committed; binary and large files get size and hash.
 * Remote content comes through fetch.ts (readMany in its budget, downloadUrl beyond it).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FILE_HEADERS_ONLY, createTwoFilesPatch, structuredPatch } from 'diff';
import { isTextBuffer } from '../../local/text.js';
import { comparePaths } from '../../model/paths.js';
import type { ElsewhereChange, Entry, RemoteOrigin } from '../../model/types.js';
import { parsedRecord, readRecord } from '../record/remote-record.js';
import { mergeRecord } from '../core/record-merge.js';
import { copyPosition, deriveBase } from '../record/copy-derive.js';
import type { CopyPosition } from '../core/copy-position.js';
import { remoteTexts } from './fetch.js';
import { reconcile } from '../core/reconcile.js';
import { readSides, type KnownLocal } from './sides.js';
import { lineEndingsNote } from './line-endings.js';
import type { Session } from '../session.js';
import { DIFF_TEXT_MAX_BYTES } from '../tunables.js';

/** Who changed the path since the last sync (status's columns). */
export type DiffSide = 'local' | 'remote' | 'conflict' | 'remote-only';

export interface FileSide {
  size: number;
  hash: string | null;
  executable: boolean;
}

export interface DiffItem {
  path: string;
  /** For a rename found by reconcile: the remote path the local file was at. */
  from?: string;
  side: DiffSide;
  /** From the deployment to the local file. */
  change: 'modified' | 'added' | 'deleted' | 'mode' | 'renamed';
  local: FileSide | null;
  remote: FileSide | null;
  /** True when either side is binary or too large to show as text: size and hash only. */
  binary: boolean;
  /** Of those, the ones shown without a patch only for their size (over DIFF_TEXT_MAX_BYTES), not known to be binary. */
  tooLarge: boolean;
  /** Lines only in the local file / only in the remote file. */
  added: number;
  removed: number;
  /** Unified diff (remote -> local); null for binary, mode-only and identical content. */
  patch: string | null;
  /** Set when the two texts differ only in line endings (CRLF against LF): says which is where (line-endings.ts). */
  lineEndings?: string;
  /**
   * Side 'remote' only: the deployment's version was left by hostsync elsewhere (another
   * machine or folder, as the base record tells), not edited there by hand.
   */
  elsewhere?: RemoteOrigin;
}

export interface DiffReport {
  items: DiffItem[];
  warnings: string[];
  /** This copy against the deployment's last push (whole-tree diffs; null for named paths). */
  position: CopyPosition | null;
}

const side = (e: Entry | undefined): FileSide | null => (e ? { size: e.size, hash: e.hash, executable: e.executable } : null);

interface Pair {
  path: string;
  from?: string;
  side: DiffSide;
  local: Entry | undefined;
  remote: Entry | undefined;
}

function changeOf(p: Pair): DiffItem['change'] {
  if (p.from !== undefined) return 'renamed';
  if (!p.remote) return 'added';
  if (!p.local) return 'deleted';
  if (p.local.hash !== null && p.local.hash === p.remote.hash && p.local.size === p.remote.size) return 'mode';
  return 'modified';
}

/** `known`: the whole local tree as a running watch said it is (instead of a scan; whole-tree diffs only). */
export async function diff(session: Session, paths: string[] | null, known?: KnownLocal): Promise<DiffReport> {
  const sides = await readSides(session, paths, 'diff', paths === null ? known : undefined);
  // A whole-tree diff merges with the deployment's base record, as push does: a fresh clone
  // has a base, and a push from elsewhere is told from a hand edit.
  let base = sides.base;
  let elsewhere: Map<string, ElsewhereChange> | undefined;
  let adopted = false;
  let position: CopyPosition | null = null;
  if (sides.remoteRead !== null) {
    const read = await readRecord(session, sides.remoteRead);
    if (read.warning !== null) sides.warnings.push(read.warning);
    position = await copyPosition(session, read);
    const derived = sides.base === null ? await deriveBase(session, read, sides.remote, sides.local, position) : null;
    const record = derived === null ? parsedRecord(read) : null;
    const merged = derived?.merged ?? (record !== null ? mergeRecord(record, sides.remote, sides.base, { own: new Set(read.own), planned: null }) : null);
    adopted = derived?.adopted ?? false;
    if (merged !== null) {
      base = merged.base;
      elsewhere = merged.elsewhere;
    }
  }
  const rec = reconcile(base, sides.local, sides.remote, { force: false, mirror: false, ...(elsewhere ? { elsewhere } : {}), ...(adopted ? { adopted } : {}) });
  const origins = new Map((rec.elsewhere ?? []).map((e) => [e.path, e.origin]));
  const pairs: Pair[] = [];
  const pair = (p: string, s: DiffSide, from?: string): void => {
    pairs.push({ path: p, side: s, local: sides.local.get(p), remote: sides.remote.get(from ?? p), ...(from !== undefined ? { from } : {}) });
  };
  for (const c of rec.changes) {
    if (c.kind === 'rename') pair(c.to, 'local', c.from);
    else pair(c.path, 'local');
  }
  for (const c of rec.conflicts) pair(c.path, 'conflict');
  for (const d of rec.drift) pair(d.path, 'remote');
  for (const e of rec.elsewhere ?? []) pair(e.path, 'remote');
  for (const p of rec.remoteOnly) pair(p, 'remote-only');
  pairs.sort((a, b) => comparePaths(a.path, b.path));

  // Remote content only where it can become a text diff. Remote-only files of a whole-tree
  // diff (uploads, data the app wrote) are listed, not read: name them to see their content.
  const listedOnly = (p: Pair): boolean => p.side === 'remote-only' && paths === null;
  const textual = (p: Pair): boolean => ['modified', 'added', 'deleted'].includes(changeOf(p)) && !listedOnly(p);
  const wanted = pairs.filter((p) => p.remote && textual(p));
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hostsync-diff-'));
  let remoteBytes: Map<string, Buffer | null>;
  try {
    remoteBytes = await remoteTexts(
      session.client,
      wanted.filter((p) => p.remote!.size <= DIFF_TEXT_MAX_BYTES && (!p.local || p.local.text !== false)).map((p) => p.remote!),
      tmp,
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }

  const items: DiffItem[] = [];
  for (const p of pairs) {
    const change = changeOf(p);
    const item: DiffItem = {
      path: p.path,
      ...(p.from !== undefined ? { from: p.from } : {}),
      side: p.side,
      change,
      local: side(p.local),
      remote: side(p.remote),
      binary: false,
      tooLarge: false,
      added: 0,
      removed: 0,
      patch: null,
      ...(origins.has(p.path) ? { elsewhere: origins.get(p.path)! } : {}),
    };
    if (textual(p)) {
      const oldText = p.remote ? remoteBytes.get(p.remote.path) : Buffer.alloc(0);
      const newText = p.local ? await localText(session.config.root, p.local) : Buffer.alloc(0);
      if (!oldText || !newText) {
        item.binary = true;
        // A side small enough to read that did not come back as text is binary; otherwise only size kept the patch out.
        const big = (e: Entry | undefined): boolean => e !== undefined && e.size > DIFF_TEXT_MAX_BYTES;
        const knownBinary = (e: Entry | undefined, text: Buffer | null | undefined): boolean => e !== undefined && (e.text === false || (!big(e) && !text));
        item.tooLarge = (big(p.local) || big(p.remote)) && !knownBinary(p.local, newText) && !knownBinary(p.remote, oldText);
      } else {
        const a = oldText.toString('utf8');
        const b = newText.toString('utf8');
        const from = p.remote ? `remote/${p.remote.path}` : '/dev/null';
        const to = p.local ? `local/${p.path}` : '/dev/null';
        const eol = p.local && p.remote ? lineEndingsNote(b, a) : null;
        if (eol !== null) item.lineEndings = eol;
        item.patch = createTwoFilesPatch(from, to, a, b, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
        for (const h of structuredPatch(from, to, a, b, undefined, undefined, { context: 0 }).hunks) {
          for (const line of h.lines) {
            if (line.startsWith('+')) item.added++;
            else if (line.startsWith('-')) item.removed++;
          }
        }
      }
    }
    items.push(item);
  }
  return { items, warnings: sides.warnings, position };
}

/** The local file's bytes when they can be shown as text; null for binary or too large. */
async function localText(root: string, e: Entry): Promise<Buffer | null> {
  if (e.text === false || e.size > DIFF_TEXT_MAX_BYTES) return null;
  const data = await readFile(path.join(root, e.local ?? e.path)).catch(() => null);
  return data && isTextBuffer(data) ? data : null;
}
