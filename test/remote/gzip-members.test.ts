/**
 * GzipMembers: gzip as a series of members compressed at once. The output must read back
 * as the input, in order, even when a later (smaller) member is compressed first; a flush
 * mark must leave a whole, exactly measured gzip file behind it; incompressible input must
 * stay within the archive bound's per-member worst case.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipMembers } from '../../src/remote/gzip-members.js';
import { gzipBound } from '../../src/sync/core/archive-bound.js';

/** The gzip magic and deflate method at the start of every member. */
const countMembers = (gz: Buffer): number => {
  let n = 0;
  for (let at = gz.indexOf(MAGIC); at >= 0; at = gz.indexOf(MAGIC, at + 1)) n++;
  return n;
};
const MAGIC = Buffer.from([0x1f, 0x8b, 0x08]);

function collect(gz: GzipMembers): { out: Buffer[]; done: Promise<Buffer> } {
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    gz.on('end', () => resolve(Buffer.concat(out)));
    gz.on('error', reject);
  });
  return { out, done };
}

describe('GzipMembers', () => {
  it('reads back as its input, in order, across many members compressed at once', async () => {
    // Large incompressible pieces then small text ones: later members finish first.
    const pieces: Buffer[] = [];
    for (let i = 0; i < 40; i++) pieces.push(i % 3 === 0 ? randomBytes(70_000) : Buffer.from(`line ${i}\n`.repeat(200 + i)));
    const gz = new GzipMembers({ blockBytes: 16 * 1024, concurrency: 3 });
    const { done } = collect(gz);
    for (const p of pieces) gz.write(p);
    gz.end();
    const out = await done;
    expect(gunzipSync(out).equals(Buffer.concat(pieces))).toBe(true);
    expect(countMembers(out)).toBeGreaterThan(10);
  });

  it('leaves a whole gzip file of everything written before a flush mark, measured exactly', async () => {
    const gz = new GzipMembers({ blockBytes: 8 * 1024, concurrency: 2 });
    const { out, done } = collect(gz);
    const first = Buffer.from('a'.repeat(50_000) + randomBytes(9_000).toString('hex'));
    gz.write(first);
    const measured = await new Promise<number>((resolve, reject) => gz.membersOut((err) => (err ? reject(err) : resolve(out.reduce((n, c) => n + c.length, 0) + gz.readableLength))));
    const soFar = Buffer.concat(out);
    expect(measured).toBe(soFar.length);
    expect(gunzipSync(soFar).equals(first)).toBe(true);
    const second = Buffer.from('tail of the stream');
    gz.end(second);
    expect(gunzipSync(await done).equals(Buffer.concat([first, second]))).toBe(true);
  });

  it('keeps incompressible input within the per-member worst case', async () => {
    const block = 4096;
    const input = randomBytes(200_000);
    const gz = new GzipMembers({ blockBytes: block, concurrency: 3 });
    const { done } = collect(gz);
    // Writes of exactly a block: the most members n bytes can make (floor(n / block) + 1).
    for (let at = 0; at < input.length; at += block) gz.write(input.subarray(at, at + block));
    gz.end();
    const out = await done;
    expect(countMembers(out)).toBeGreaterThanOrEqual(Math.floor(input.length / block) + 1);
    expect(out.length).toBeLessThanOrEqual(gzipBound(input.length, block));
    expect(gunzipSync(out).equals(input)).toBe(true);
  });

  it('answers a flush mark with an error once destroyed, instead of never', async () => {
    const gz = new GzipMembers({ blockBytes: 1024 * 1024, concurrency: 1 });
    gz.on('error', () => undefined);
    gz.write(randomBytes(100_000));
    const answered = new Promise<unknown>((resolve) => gz.membersOut((err) => resolve(err)));
    gz.destroy();
    expect(await answered).toBeInstanceOf(Error);
  });
});
