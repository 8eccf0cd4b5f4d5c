/**
 * Imports point down only (README, "Architecture: the layers"). A module may import its
 * own layer and the ones below; the emulator imports only src/api/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Rank of each top-level entry of src/: higher may import lower, never the reverse. */
const RANK: Record<string, number> = {
  'errors.ts': 0, model: 0, api: 0,
  local: 1, remote: 1, state: 1, config: 1,
  sync: 2,
  watch: 3,
  app: 4,
  cli: 5, 'index.ts': 5,
};
/** The emulator is used by the two faces on top (the `emulator` command, startEmulator()). */
const MAY_USE_EMULATOR = new Set(['cli', 'index.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const abs = path.join(dir, d.name);
    return d.isDirectory() ? sources(abs) : d.name.endsWith('.ts') ? [abs] : [];
  });
}

const layerOf = (abs: string): string => path.relative(SRC, abs).split(path.sep)[0]!.replace(/\.js$/, '.ts');

function violations(): string[] {
  const out: string[] = [];
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:from\s+|import\s*\(?)\s*'(\.[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), m[1]!);
      const to = layerOf(target);
      const rel = `${path.relative(SRC, file)} -> ${m[1]}`;
      if (from === 'emulator') {
        if (to !== 'emulator' && to !== 'api') out.push(rel);
      } else if (to === 'emulator') {
        if (!MAY_USE_EMULATOR.has(from)) out.push(rel);
      } else if (RANK[from] === undefined || RANK[to] === undefined) {
        out.push(`${rel} (a layer the table does not know: add it to RANK and the README)`);
      } else if (RANK[to]! > RANK[from]!) {
        out.push(rel);
      }
    }
  }
  return out;
}

describe('layers', () => {
  it('every import points down (or stays in its layer)', () => {
    expect(violations()).toEqual([]);
  });
});
