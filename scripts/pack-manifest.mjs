#!/usr/bin/env node
// `prepack` / `postpack`: the published package ships a freshly built dist/ and no `prepare`.
// `prepare` builds dist/ for a git checkout or a git install (npm runs it there), but in a
// tarball it is dead weight: there is no src/ to build, and npm 11 lists a non-registry
// package's `prepare` as an install script to approve. So the packed package.json drops
// it, and postpack puts the original bytes back.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = path.join(root, 'package.json');
const saved = path.join(root, 'package.json.prepack');

const mode = process.argv[2];
if (mode === 'prepack') {
  // A clean build: files of modules that moved or were removed must not ship.
  rmSync(path.join(root, 'dist'), { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit' });
  // The CLI users run (package.json "bin"): the bundle of what tsc just wrote.
  execFileSync(process.execPath, [path.join(root, 'scripts/bundle.mjs')], { stdio: 'inherit' });
  // A saved copy means an earlier pack died before postpack: that copy is the original.
  if (!existsSync(saved)) writeFileSync(saved, readFileSync(manifest));
  const pkg = JSON.parse(readFileSync(saved, 'utf8'));
  delete pkg.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(saved)) renameSync(saved, manifest);
} else {
  console.error('usage: pack-manifest.mjs prepack|restore');
  process.exit(2);
}
