/**
 * The package as a user gets it: `npm pack`, install the tarball into a fresh project
 * (offline, from the npm cache), type-check a TypeScript consumer against the shipped
 * .d.ts, run it (push, status, watch and the client against an emulator), and compare
 * the library's result with the installed CLI's `push --json`.
 * Needs dist/ built (npm test builds it first).
 */
import { execFile } from 'node:child_process';
import { cp, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tree.js';

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(REPO, 'node_modules/typescript/bin/tsc');
const cleanEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };

let project: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  project = await tempDir('hostsync-package-');
  const dir = project.dir;
  await run('npm', ['pack', REPO, '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: dir, env: process.env });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  await run('npm', ['install', `./${tarball}`, '--prefer-offline', '--no-audit', '--no-fund', '--silent'], { cwd: dir, env: process.env });
  await cp(path.join(REPO, 'test/library/consumer.ts'), path.join(dir, 'consumer.ts'));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out',
        // Checking every dependency's declarations costs ~10 s; the consumer's
        // @ts-expect-error lines prove the package's own types resolved instead.
        skipLibCheck: true,
        types: ['node'], typeRoots: [path.join(REPO, 'node_modules/@types')],
      },
      files: ['consumer.ts'],
    }),
  );
}, 120_000);

afterAll(async () => {
  await project?.cleanup();
});

describe('the published package', () => {
  it('type-checks a consumer against its .d.ts, and pushes, reports and watches by name', async () => {
    const dir = project.dir;
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: dir });
    const { stdout } = await run(process.execPath, ['out/consumer.js'], { cwd: dir, env: cleanEnv });
    const seen = JSON.parse(stdout);

    expect(seen.pushed).toMatchObject({ ok: true, dryRun: false, changes: { written: 1, deleted: 0 }, conflicts: [], apply: null });
    expect(seen.pushed).not.toHaveProperty('error');
    expect(seen.code).toBe(0);
    expect(seen.status).toMatchObject({ ok: true, changes: [{ kind: 'write', path: 'app.css', create: true }] });
    // A refused key: the same keys as a success, plus error and exitCode, and no key in the message.
    expect(seen.refused).toMatchObject({ ok: false, exitCode: 2 });
    expect(Object.keys(seen.refused).sort()).toEqual([...Object.keys(seen.pushed), 'error', 'exitCode'].sort());
    expect(JSON.stringify(seen.refused)).not.toContain('not-a-key-the-emulator-knows');
    // watch: the initial cycle pushed app.css; the handle saw it and stopped cleanly.
    expect(seen.cycle).toMatchObject({ type: 'cycle', trigger: 'start', changes: { written: 1 }, paths: ['app.css'] });
    expect(seen.seen).toContain('stopped');
    expect(seen.end).toMatchObject({ ok: true });
    expect(seen.remote).toEqual(['app.css', 'index.html']);
  });

  it('prints with its CLI the same object its push() resolves to', async () => {
    const dir = project.dir;
    const { startEmulator } = await import('../../src/emulator/index.js');
    const emu = await startEmulator();
    try {
      const work = path.join(dir, 'site');
      await cp(path.join(REPO, 'examples/hello'), work, { recursive: true });
      const env = { ...cleanEnv, HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: emu.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId };
      const cli = await run(process.execPath, ['node_modules/.bin/hostsync', 'push', '--no-apply', '--json', '--dir', work], { cwd: dir, env });
      const printed = JSON.parse(cli.stdout);
      const script = "import { push } from 'hostsync'; process.stdout.write(JSON.stringify(await push({ dir: process.argv[1], apply: false })));";
      const lib = await run(process.execPath, ['--input-type=module', '-e', script, work], { cwd: dir, env });
      const returned = JSON.parse(lib.stdout);
      expect(printed.ok).toBe(true);
      expect(printed.changes.written).toBeGreaterThan(0);
      expect(returned).toMatchObject({ ok: true, changes: { written: 0 }, requests: { total: 1 } });
      expect(Object.keys(returned)).toEqual(Object.keys(printed));
    } finally {
      await emu.close();
    }
  });
});
