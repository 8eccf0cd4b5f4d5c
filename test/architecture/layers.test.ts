/**
 * Imports point down only (README, "Architecture: the layers"). A module may import its
 * own layer and the ones below; the emulator imports only src/api/. And no module reaches
 * itself again through its imports (type-only ones included): a circle hides which of
 * its files is the lower one, and the order they load in decides what is undefined.
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

/** Every relative import (static, type-only, re-export, dynamic) of a source file: the specifier and the file it names. */
function importsOf(file: string): { spec: string; target: string }[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(?)\s*'(\.[^']+)'/g)].map((m) => ({
    spec: m[1]!,
    target: path.resolve(path.dirname(file), m[1]!).replace(/\.js$/, '.ts'),
  }));
}

/** The import circles of src/: the strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

function importCircles(): string[][] {
  const graph = new Map(sources(SRC).map((f) => [f, importsOf(f).map((i) => i.target)]));
  return circles(graph).map((c) => c.map((f) => path.relative(SRC, f)));
}

function violations(): string[] {
  const out: string[] = [];
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    for (const { spec, target } of importsOf(file)) {
      const to = layerOf(target);
      const rel = `${path.relative(SRC, file)} -> ${spec}`;
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

  it('no import circle anywhere in src/ (type-only imports included)', () => {
    expect(importCircles()).toEqual([]);
  });

  it('the circle finder finds a circle through type-only imports and a file importing itself, and nothing in a chain', () => {
    const g = new Map([
      ['a', ['b']], ['b', ['c']], ['c', ['a', 'd']], ['d', []],
      ['e', ['e']], ['f', ['d']],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c'], ['e']]);
    expect(circles(new Map([['x', ['y']], ['y', ['z']], ['z', []]]))).toEqual([]);
  });
});
