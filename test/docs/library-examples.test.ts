/**
 * docs/library.md's ```ts blocks type-check, strict, as a consumer's ESM TypeScript would,
 * against the declarations the package ships (dist/index.d.ts, built by `npm test` before
 * vitest runs, standing in for 'hostsync'). A renamed option or result field fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const page = readFileSync(path.join(ROOT, 'docs/library.md'), 'utf8');
const blocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('docs/library.md examples', () => {
  it('has a typed example for every function the package exports', async () => {
    const lib = await import('../../src/index.js');
    const functions = Object.entries(lib).filter(([, v]) => typeof v === 'function' && !/^[A-Z]/.test(v.name)).map(([k]) => k);
    const all = blocks.join('\n');
    expect(functions.filter((f) => !new RegExp(`\\b${f}\\(`).test(all))).toEqual([]);
  });

  it('every example type-checks, strict', () => {
    const dir = path.join(ROOT, 'test/docs/.examples');
    const files = new Map(blocks.map((code, i) => [path.join(dir, `example-${i}.ts`), `${code}\nexport {};\n`] as const));
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: ['node'],
      baseUrl: ROOT,
      paths: { hostsync: ['dist/index.d.ts'] },
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    host.readFile = (f) => files.get(f) ?? read(f);
    host.fileExists = (f) => files.has(f) || exists(f);
    // The examples are ESM (top-level await): tell the resolver their folder is a module package.
    const moduleDir = (f: string) => path.dirname(f) === dir;
    const origRead = host.readFile;
    host.readFile = (f) => (moduleDir(f) && path.basename(f) === 'package.json' ? '{"type":"module"}' : origRead(f));
    host.fileExists = (f) => (moduleDir(f) && path.basename(f) === 'package.json') || files.has(f) || exists(f);
    const program = ts.createProgram([...files.keys()], options, host);
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file && files.has(d.file.fileName))
      .map((d) => `${path.basename(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(errors).toEqual([]);
  }, 120_000);
});
