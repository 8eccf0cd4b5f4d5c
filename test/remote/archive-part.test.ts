/**
 * tarGzPart (issue 16): an archive part cut by its compressed size. Incompressible files
 * are cut by the worst case, every part within the limit; compressible files fill a part
 * far past the worst case. Both tar modes (synchronous reads of small files, streamed
 * reads when a file is large) cut the same way. The limit is small and injected.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as tar from 'tar';
import { tarGzPart, type PartBudget } from '../../src/remote/upload.js';
import { archiveBoundOf, partFits, tarEntryBytesOf } from '../../src/sync/core/archive-bound.js';

const LIMIT = 48 * 1024;
const budget: PartBudget = { maxBytes: LIMIT, entryBytes: tarEntryBytesOf, fits: (flushed, tarBytes) => partFits(LIMIT, flushed, tarBytes, 512) };
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'hostsync-part-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(files: Record<string, Buffer>): Promise<string[]> {
  for (const [rel, body] of Object.entries(files)) {
    await mkdir(dirname(join(root, rel)), { recursive: true });
    await writeFile(join(root, rel), body);
  }
  return Object.keys(files).sort();
}

/** Every part in turn until all files are carried: each part's bytes, files, and what it holds. */
async function cut(paths: string[], syncMax?: number): Promise<Array<{ bytes: number; files: string[]; held: Map<string, Buffer> }>> {
  const parts = [];
  let rest = paths;
  while (rest.length > 0) {
    const part = tarGzPart(root, rest.map((p) => ({ path: p, stat: lstatSync(join(root, p)) })), budget, syncMax);
    const chunks: Buffer[] = [];
    for await (const c of part.stream) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    expect(part.bytes()).toBe(body.length);
    const held = new Map<string, Buffer>();
    await new Promise<void>((resolve, reject) => {
      const parser = new tar.Parser({
        onReadEntry: (e) => {
          const bufs: Buffer[] = [];
          e.on('data', (d: Buffer) => bufs.push(d));
          e.on('end', () => held.set(e.path, Buffer.concat(bufs)));
        },
      });
      parser.on('end', resolve);
      parser.on('error', reject);
      parser.end(body);
    });
    parts.push({ bytes: body.length, files: rest.slice(0, part.files()), held });
    expect(part.files()).toBeGreaterThan(0);
    rest = rest.slice(part.files());
  }
  return parts;
}

describe.each([
  ['synchronous tar', undefined],
  ['streamed tar', 0],
])('tarGzPart, %s', (_mode, syncMax) => {
  it('cuts random bytes by the worst case: every part within the limit, every file carried once, intact', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 24; i++) files[`rand-${syncMax ?? 's'}/f${String(i).padStart(2, '0')}.bin`] = randomBytes(6_000);
    const paths = await write(files);
    const parts = await cut(paths, syncMax);
    // 24 x 6,656 tar bytes do not compress: at least ceil(160 KB / 48 KiB) = 4 parts.
    expect(parts.length).toBeGreaterThanOrEqual(4);
    for (const p of parts) expect(p.bytes).toBeLessThanOrEqual(LIMIT);
    expect(parts.flatMap((p) => p.files)).toEqual(paths);
    for (const p of parts) for (const f of p.files) expect(p.held.get(f)).toEqual(files[f]);
  });

  it('fills one part with compressible files far past the worst-case bound', async () => {
    const files: Record<string, Buffer> = {};
    const line = Buffer.from('export const value = await load("./config.json"); // again\n');
    for (let i = 0; i < 40; i++) files[`text-${syncMax ?? 's'}/f${String(i).padStart(2, '0')}.js`] = Buffer.alloc(8_000, line);
    const paths = await write(files);
    const entryBytes = paths.reduce((n, p) => n + tarEntryBytesOf(p, 8_000), 0);
    expect(archiveBoundOf(entryBytes)).toBeGreaterThan(6 * LIMIT); // 320 KB: 7 parts at worst
    const parts = await cut(paths, syncMax);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.files).toEqual(paths);
    expect(parts[0]!.bytes).toBeLessThan(LIMIT);
    for (const f of paths) expect(parts[0]!.held.get(f)).toEqual(files[f]);
  });

  it('closes a part near the limit when compressible files outgrow it, measuring by flushes', async () => {
    const files: Record<string, Buffer> = {};
    let x = 12345;
    const words = ['alpha ', 'beta ', 'gamma ', 'delta ', 'push ', 'sync ', 'tree ', 'node '];
    for (let i = 0; i < 60; i++) {
      let s = '';
      while (s.length < 8_000) {
        x = (x * 1103515245 + 12345) % 2147483648;
        s += words[(x >>> 16) % words.length];
      }
      files[`words-${syncMax ?? 's'}/f${String(i).padStart(2, '0')}.txt`] = Buffer.from(s);
    }
    const paths = await write(files);
    const parts = await cut(paths, syncMax);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.bytes).toBeLessThanOrEqual(LIMIT);
    // Cut by what came out: every part but the last more than half full (the worst case would fit 5 files a part).
    for (const p of parts.slice(0, -1)) expect(p.bytes).toBeGreaterThan(LIMIT / 2);
    expect(parts.flatMap((p) => p.files)).toEqual(paths);
    for (const p of parts) for (const f of p.files) expect(await readFile(join(root, f))).toEqual(p.held.get(f));
  });
});
