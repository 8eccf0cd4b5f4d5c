/**
 * XXH64, seed 0, as 16 lowercase hex digits (what `xxhsum -H64` prints), the hash
 * files.index reports. Large files are hashed streaming: xxhash-wasm's memory grows
 * to the largest buffer it was given and never shrinks.
 */
import { createReadStream, readFileSync } from 'node:fs';
import xxhash from 'xxhash-wasm';
import { HASH_STREAM_THRESHOLD_BYTES } from './tunables.js';

const api = xxhash();

export function hex64(v: bigint): string {
  return v.toString(16).padStart(16, '0');
}

export async function xxh64Bytes(bytes: Uint8Array): Promise<string> {
  return hex64((await api).h64Raw(bytes, 0n));
}

/**
 * Small files are read synchronously: per file, one sync read beats the several
 * threadpool round trips of an async one (measured, see HASH_CONCURRENCY in tunables).
 * Each streaming hasher keeps its own state on the JS side, so concurrent calls are safe.
 */
export async function xxh64File(abs: string, size: number): Promise<string> {
  const h = await api;
  if (size < HASH_STREAM_THRESHOLD_BYTES) return hex64(h.h64Raw(readFileSync(abs), 0n));
  const state = h.create64(0n);
  for await (const chunk of createReadStream(abs, { highWaterMark: 1024 * 1024 })) {
    state.update(chunk as Buffer);
  }
  return hex64(state.digest());
}

/** A maker of streaming hashers (each its own state), for bytes seen as they pass by. */
export async function newHasher64(): Promise<() => { update(b: Uint8Array): void; digest(): string }> {
  const h = await api;
  return () => {
    const state = h.create64(0n);
    return {
      update: (b) => void state.update(b),
      digest: () => hex64(state.digest()),
    };
  };
}

/** Hash of a string's UTF-8 bytes (used for the tree digest). */
export async function xxh64String(s: string): Promise<string> {
  return hex64((await api).h64(s, 0n));
}

/** One XXH64 over many strings, fed one at a time so a large tree never builds one giant string. */
export async function xxh64Lines(lines: Iterable<string>): Promise<string> {
  const state = (await api).create64(0n);
  for (const line of lines) state.update(line);
  return hex64(state.digest());
}
