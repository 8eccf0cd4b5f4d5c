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
/**
 * src/sync/ by use, lowest first: a folder may import its own files and those of lower
 * rank; the files left directly in sync/ are shared, each ranked on its own (they may import
 * each other downward or level). docs/architecture.md draws the same order.
 *   0  the vocabulary every part shares: tunables, named paths, errors in words, the client, console lines, notify
 *   1  core/: the pure three-way decisions (reconcile, decide, plan, verify, the record's merge, the
 *      undo and rollback plans); settings/: the pure plans of start settings and variables
 *   2  the session (one root, one deployment) and the guards every command passes through it
 *   3  remote-read/: reading R (files.index, truncation); apply/: apply, restarts, health
 *   4  record/: the base record's edges and what is derived from it (copies without a base)
 *   5  push/: the push pipeline (its executor serves every command that writes the remote)
 *   6  two-way/: pull, resolve, diff, undo, rollback; watch-cycle/: watch's scoped cycle and drift poll
 */
const SYNC_RANK: Record<string, number> = {
  'tunables.ts': 0, 'scope.ts': 0, 'describe-error.ts': 0, 'command-client.ts': 0, 'console-lines.ts': 0, 'notify.ts': 0,
  core: 1, settings: 1,
  'session.ts': 2, 'undo-guard.ts': 2, 'unverified-fold.ts': 2, 'temp-cleanup.ts': 2,
  'remote-read': 3, apply: 3,
  record: 4,
  push: 5,
  'two-way': 6, 'watch-cycle': 6,
};
/** The parts of sync/ that decide without touching the world: no value import of an I/O module. */
const PURE_SYNC = new Set(['core', 'settings']);
/** Node and package modules that touch the disk, processes or the network. */
const IO_MODULE = /^(node:)?(fs|fs\/promises|child_process|net|http|https|http2|dgram|worker_threads)$|^undici(\/|$)/;

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

/** The modules a source file loads at run time (type-only imports load nothing): bare names as written, relative ones resolved. */
function valueImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?'([^']+)'/gm)) {
    if (!m[1]) out.push(m[2]!);
  }
  for (const m of text.matchAll(/import\(\s*'([^']+)'\s*\)/g)) out.push(m[1]!);
  return out.map((s) => (s.startsWith('.') ? path.resolve(path.dirname(file), s).replace(/\.js$/, '.ts') : s));
}

/** A file of src/ that touches the world itself: it loads an I/O module. */
const touchesWorld = (abs: string): boolean => valueImportsOf(abs).some((s) => IO_MODULE.test(s));

/** The part of sync/ a file belongs to: its subfolder, or its own name when it sits directly in sync/. */
function syncPart(abs: string): { part: string; folder: boolean } | null {
  const rel = path.relative(path.join(SRC, 'sync'), abs).split(path.sep);
  if (rel[0] === '..' || path.isAbsolute(rel[0]!)) return null;
  return rel.length > 1 ? { part: rel[0]!, folder: true } : { part: rel[0]!.replace(/\.js$/, '.ts'), folder: false };
}

/** Imports inside src/sync/ that point up its rank order, and I/O reached from its pure parts. */
function syncViolations(): string[] {
  const out: string[] = [];
  for (const file of sources(path.join(SRC, 'sync'))) {
    const from = syncPart(file)!;
    const at = path.relative(SRC, file);
    if (SYNC_RANK[from.part] === undefined) {
      out.push(`${at} (a part of sync/ the table does not know: add it to SYNC_RANK and docs/architecture.md)`);
      continue;
    }
    for (const { spec, target } of importsOf(file)) {
      const to = syncPart(target);
      if (to === null || to.part === from.part) continue;
      const rank = SYNC_RANK[to.part];
      if (rank === undefined) out.push(`${at} -> ${spec} (unknown part of sync/)`);
      else if (from.folder || to.folder ? rank >= SYNC_RANK[from.part]! : rank > SYNC_RANK[from.part]!) out.push(`${at} -> ${spec}`);
    }
    if (PURE_SYNC.has(from.part)) {
      for (const s of valueImportsOf(file)) {
        if (IO_MODULE.test(s) || (s.startsWith(SRC) && touchesWorld(s))) out.push(`${at} loads ${path.isAbsolute(s) ? path.relative(SRC, s) : s}, which touches the disk, a process or the network (pure core)`);
      }
    }
  }
  return out;
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

  it('inside sync/, imports point down its rank order, and the pure core loads no I/O module', () => {
    expect(syncViolations()).toEqual([]);
  });

  it('at most 16 files sit directly in sync/: the rest live in the folder of their use', () => {
    expect(readdirSync(path.join(SRC, 'sync')).filter((n) => n.endsWith('.ts')).length).toBeLessThanOrEqual(16);
  });

  it('no source file is over 600 lines: a bigger one holds more than one concept, split by concept', () => {
    const long = sources(SRC)
      .map((f) => ({ file: path.relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > 600);
    expect(long).toEqual([]);
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
