/**
 * Remote content, fetched within the service's budgets: small text files through
 * files.readMany (many per request, within its byte budget), everything else (large,
 * binary) streamed through files.downloadUrl. Every byte is checked against the hash the
 * index gave before it is used, so a file that changed between index and read is never
 * taken for the one that was compared.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { HostingClient } from '../../remote/client.js';
import { xxh64Bytes, xxh64File } from '../../local/hash.js';
import { isTextBuffer } from '../../local/text.js';
import { placeBytes, placeTemp, prepareTarget, tempBeside } from '../../local/place.js';
import { EditedMeanwhileError, type Expectation } from '../../local/recheck.js';
import type { StatCache } from '../../local/statcache.js';
import { toBaseEntry } from '../../model/snapshot.js';
import type { Entry, Snapshot } from '../../model/types.js';
import type { StepFailure } from '../../model/types.js';
import { DIFF_TEXT_MAX_BYTES, DOWNLOAD_CONCURRENCY, READ_MANY_BUDGET_BYTES } from '../tunables.js';

const changedMessage = (p: string): string => `${p} changed on the deployment while it was read: run the command again`;

/** Greedy batches whose sizes add up to at most the budget (each file fits alone). */
export function readManyBatches(entries: readonly Entry[], budget = READ_MANY_BUDGET_BYTES): Entry[][] {
  const out: Entry[][] = [];
  let cur: Entry[] = [];
  let bytes = 0;
  for (const e of entries) {
    if (cur.length > 0 && bytes + e.size > budget) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(e);
    bytes += e.size;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

export interface SmallRead {
  /** Verified content by path. */
  got: Map<string, Buffer>;
  /** readMany said binary: these need downloadUrl (or, for diff, no content at all). */
  binary: Set<string>;
  /** Not read through readMany (too big, skipped, or bytes that did not match the index). */
  rest: Entry[];
}

/** Small files through readMany; entries over the budget go straight to `rest`. */
export async function readSmall(client: HostingClient, entries: readonly Entry[]): Promise<SmallRead> {
  const out: SmallRead = { got: new Map(), binary: new Set(), rest: [] };
  const small = entries.filter((e) => e.size <= READ_MANY_BUDGET_BYTES);
  out.rest.push(...entries.filter((e) => e.size > READ_MANY_BUDGET_BYTES));
  for (const batch of readManyBatches(small)) {
    const res = await client.files.readMany(
      batch.map((e) => e.path),
      READ_MANY_BUDGET_BYTES,
    );
    for (const [i, e] of batch.entries()) {
      const f = res.files[i]?.path === e.path ? res.files[i] : res.files.find((x) => x.path === e.path);
      if (f && f.content !== null) {
        const data = Buffer.from(f.content, 'utf8');
        if (e.hash === null || (await xxh64Bytes(data)) === e.hash) {
          out.got.set(e.path, data);
          continue;
        }
      }
      if (f?.skipped === 'binary') out.binary.add(e.path);
      out.rest.push(e);
    }
  }
  return out;
}

/** Runs `fn` over items, at most `n` at once. */
async function eachLimited<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

export interface FetchResult {
  /** What each placed file now is locally (hash of the bytes written). */
  placed: Map<string, Entry>;
  failures: StepFailure[];
  /** Not placed: the local file changed since `local` was scanned (a conflict, the user's file kept). */
  raced: string[];
  bytes: number;
}

export interface FetchOptions {
  onFile?: (rel: string) => void;
  /** The local tree as scanned: each target must still be so right before it is replaced (local/recheck.ts). */
  local?: Snapshot;
  /** Vouches for an unchanged stat, so an untouched target is not hashed again. */
  cache?: StatCache;
}

/**
 * Brings `entries` from the remote into the local tree under `root`, each written
 * atomically with its mode kept (local/place.ts). A file that fails is reported and left
 * as it was; the others still land.
 */
export async function fetchInto(client: HostingClient, root: string, entries: readonly Entry[], opts: FetchOptions = {}): Promise<FetchResult> {
  const { onFile, local, cache } = opts;
  const out: FetchResult = { placed: new Map(), failures: [], raced: [], bytes: 0 };
  const fail = (p: string, err: unknown): void => {
    if (err instanceof EditedMeanwhileError) out.raced.push(p);
    else out.failures.push({ path: p, error: err instanceof Error ? err.message : String(err) });
  };
  // `key` is the wire path the scan keyed the file by, `disk` the name it has on disk (NFD on a Mac: names.ts).
  const expect = (key: string, disk: string): Expectation | undefined => (local ? { rel: disk, entry: local.get(key), cache } : undefined);
  const small = await readSmall(client, entries);
  for (const e of entries) {
    const data = small.got.get(e.path);
    if (!data) continue;
    try {
      const disk = e.local ?? e.path;
      await placeBytes(root, disk, data, e.executable, expect(e.path, disk));
      out.placed.set(e.path, toBaseEntry({ ...e, hash: await xxh64Bytes(data), size: data.length }));
      out.bytes += data.length;
      onFile?.(e.path);
    } catch (err) {
      fail(e.path, err);
    }
  }
  await eachLimited(small.rest, DOWNLOAD_CONCURRENCY, async (e) => {
    const disk = e.local ?? e.path;
    let tmp: string | null = null;
    try {
      tmp = tempBeside(prepareTarget(root, disk));
      await client.files.download(e.path, tmp);
      const d = await xxh64File(tmp);
      if (e.hash !== null && d.hash !== e.hash) throw new Error(changedMessage(e.path));
      await placeTemp(tmp, root, disk, e.executable, expect(e.path, disk));
      tmp = null;
      out.placed.set(e.path, { path: e.path, hash: d.hash, size: d.size, executable: e.executable });
      out.bytes += d.size;
      onFile?.(e.path);
    } catch (err) {
      if (tmp) await rm(tmp, { force: true });
      fail(e.path, err);
    }
  });
  return out;
}

/** Remote content for diff: text up to DIFF_TEXT_MAX_BYTES, read into memory; null for binary or larger files. */
export async function remoteTexts(client: HostingClient, entries: readonly Entry[], tmpDir: string): Promise<Map<string, Buffer | null>> {
  const out = new Map<string, Buffer | null>();
  const small = await readSmall(client, entries);
  for (const [p, data] of small.got) out.set(p, data);
  for (const p of small.binary) out.set(p, null);
  let n = 0;
  for (const e of small.rest) {
    if (out.has(e.path)) continue;
    if (e.size > DIFF_TEXT_MAX_BYTES) {
      out.set(e.path, null);
      continue;
    }
    const tmp = path.join(tmpDir, `remote-${n++}`);
    try {
      await client.files.download(e.path, tmp);
      const data = await readFile(tmp);
      out.set(e.path, isTextBuffer(data) ? data : null);
    } finally {
      await rm(tmp, { force: true });
    }
  }
  return out;
}
