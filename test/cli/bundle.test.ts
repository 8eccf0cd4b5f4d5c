/**
 * The CLI users run is dist/bin/hostsync.js, scripts/bundle.mjs's esbuild bundle of tsc's
 * dist/ (package.json "bin"); every other CLI test runs it too (helpers/cli.ts). These
 * check what a bundle can get wrong and they would not see: that the packages are in it
 * (start-up reads no package through Node's loader), that paths relative to a module
 * still name the package's files, that lazy loading survived, and that the hash worker
 * beside the chunks runs. Needs `npm run build` (tsc, then the bundle).
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { digestSmallFileSync, xxhashApi } from '../../src/local/hash.js';
import { makeColumns, READ, type PoolMessage } from '../../src/local/hash-pool.js';
import { CLI, TEST_CONFIG_HOME } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const BIN = path.dirname(CLI);

/** The output files `file` imports statically (what loading it loads), itself included. */
function staticClosure(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(path.join(BIN, file), 'utf8');
  // `import "./x.js"`, `import { a } from "./x.js"` (over several lines), `export { b } from "./x.js"`.
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?"\.\/([^"]+\.js)";/gm)) staticClosure(m[1]!, seen);
  return seen;
}

/** The source modules in `files` (esbuild heads each module's code with a `// path` comment). */
function modulesIn(files: Iterable<string>): string[] {
  return [...files].flatMap((f) => [...readFileSync(path.join(BIN, f), 'utf8').matchAll(/^\/\/ ((?:dist|node_modules)\/\S+)$/gm)].map((m) => m[1]!));
}

/** The chunk `hostsync.js` imports for `command`'s module (`import("./status-XXXX.js")`). */
function commandChunk(command: string): string {
  const m = readFileSync(CLI, 'utf8').match(new RegExp(`import\\("\\./(${command}-[A-Z0-9]+\\.js)"\\)`));
  if (!m) throw new Error(`no chunk for ${command} in hostsync.js`);
  return m[1]!;
}

describe('the bundled CLI', () => {
  it('is the command package.json installs, and the file the CLI tests run', async () => {
    const pkg = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(path.resolve(REPO, pkg.bin['hostsync']!)).toBe(CLI);
    expect(existsSync(CLI)).toBe(true);
  });

  it('loads each command\'s module only when it runs (status never loads the emulator); typescript is never in it', () => {
    const atStart = modulesIn(staticClosure('hostsync.js'));
    expect(atStart).toContain('dist/cli/main.js');
    expect(atStart.filter((m) => m.startsWith('dist/cli/commands/') || m.startsWith('dist/emulator/'))).toEqual([]);
    const status = modulesIn(staticClosure(commandChunk('status')));
    expect(status).toContain('dist/cli/commands/status.js');
    expect(status.filter((m) => m.startsWith('dist/emulator/') || m.startsWith('node_modules/acorn/'))).toEqual([]);
    const emulator = modulesIn(staticClosure(commandChunk('emulator')));
    expect(emulator).toContain('dist/emulator/index.js');
    expect(modulesIn(readdirJs()).filter((m) => m.startsWith('node_modules/typescript/'))).toEqual([]);
  });

  describe('copied with the package files and no node_modules', () => {
    let emu: RunningEmulator;
    let work: { dir: string; cleanup: () => Promise<void> };
    let pkg: string;
    let cli: string;

    beforeAll(async () => {
      emu = await startEmulator({ runtime: 'static' });
      work = await tempDir('hostsync-bundle-');
      pkg = path.join(work.dir, 'pkg');
      for (const f of ['package.json', 'README.md', '.syncignore.example']) await cp(path.join(REPO, f), path.join(pkg, f));
      await cp(BIN, path.join(pkg, 'dist/bin'), { recursive: true });
      cli = path.join(pkg, 'dist/bin/hostsync.js');
      // Node looks for packages in every ancestor's node_modules: one there would let the copy pass unbundled.
      for (let d = pkg; d !== path.dirname(d); d = path.dirname(d)) {
        if (existsSync(path.join(d, 'node_modules'))) throw new Error(`${d}/node_modules exists: this test needs a temporary folder with none above it`);
      }
    });
    afterAll(async () => {
      await emu?.close();
      await work?.cleanup();
    });

    const hostsync = async (args: string[], cwd: string) => {
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', XDG_CONFIG_HOME: TEST_CONFIG_HOME, HOSTSYNC_CACHE_DIR: path.join(work.dir, 'cache'), ...envFor(emu) };
      try {
        const { stdout, stderr } = await run(process.execPath, [cli, ...args], { cwd, env });
        return { code: 0, stdout, stderr };
      } catch (err) {
        const e = err as { code?: number; stdout?: string; stderr?: string };
        return { code: e.code ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
      }
    };

    it('names the package root\'s README and docs in --help, writes .syncignore from its template, pushes (a multipart upload too) and reports', async () => {
      const help = await hostsync(['--help'], work.dir);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`The README (${path.join(pkg, 'README.md')})`);
      expect(help.stdout).toContain(`the pages in ${path.join(pkg, 'docs')}${path.sep}`);

      const site = path.join(work.dir, 'site');
      // logo.png goes by files.upload, a multipart form: undici's FormData, from its own chunk.
      await writeTree(site, { 'index.html': '<title>hi</title>\n', 'app.css': 'body {}\n', 'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]) });
      const init = await hostsync(['init'], site);
      expect(init.code).toBe(0);
      expect(await readFile(path.join(site, '.syncignore'), 'utf8')).toBe(await readFile(path.join(REPO, '.syncignore.example'), 'utf8'));

      const pushed = await hostsync(['push', '--json'], site);
      expect(pushed.stderr).toBe('');
      expect(JSON.parse(pushed.stdout)).toMatchObject({ ok: true, changes: { written: 5 }, requests: { byOperation: { 'files.upload': 1 } } });
      await writeFile(path.join(site, 'app.css'), 'body { margin: 0 }\n');
      const status = await hostsync(['status', '--json'], site);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ ok: true, changes: [{ kind: 'write', path: 'app.css' }] });
    });
  });

  it('starts its hash worker beside the chunks, which reads files as digestSmallFileSync does', async () => {
    const chunk = readdirJs().find((f) => readFileSync(path.join(BIN, f), 'utf8').includes('\n// dist/local/hash-pool.js\n'));
    expect(chunk).toBeDefined();
    expect(readFileSync(path.join(BIN, chunk!), 'utf8')).toContain('new URL("./hash-worker.js", import.meta.url)');

    const work = await tempDir('hostsync-bundle-worker-');
    try {
      await writeTree(work.dir, { 'a.txt': 'hello\n', 'b.bin': Buffer.from([0, 1, 2, 255]), 'c/d.js': 'export {};\n' });
      const files = ['a.txt', 'b.bin', 'c/d.js'].map((rel) => ({ abs: path.join(work.dir, rel), stat: undefined }));
      const columns = makeColumns(files);
      const worker = new Worker(path.join(BIN, 'hash-worker.js'));
      try {
        worker.postMessage({ segment: { base: 0, columns } } satisfies PoolMessage);
        worker.postMessage({ end: true } satisfies PoolMessage);
        const [answer] = (await once(worker, 'message')) as [{ errors: unknown[] }];
        expect(answer.errors).toEqual([]);
      } finally {
        await worker.terminate();
      }
      const xx = await xxhashApi();
      files.forEach((f, i) => {
        const d = digestSmallFileSync(f.abs, xx, undefined);
        if (d === null || d === 'large') throw new Error(`${f.abs}: not a small file`);
        expect(columns.outcome[i]).toBe(READ);
        expect([columns.hashLo[i], columns.hashHi[i], columns.size[i]]).toEqual([d.hashLo, d.hashHi, d.size]);
      });
    } finally {
      await work.cleanup();
    }
  });
});

/** Every output file of the bundle. */
function readdirJs(): string[] {
  return readdirSync(BIN).filter((f) => f.endsWith('.js'));
}
