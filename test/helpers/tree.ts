import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { mkdtemp, readdir, readFile, lstat, rm, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A new folder in the test run's own folder (vitest.config.ts, RUN_DIR), which goes when
 * the run ends: for folders a helper makes that no test's cleanup owns (a git repository,
 * a CI runner's temp folder, the CLI's config home). Outside a vitest run, the temp folder.
 */
export function runDir(prefix: string): string {
  const run = process.env.HOSTSYNC_TEST_RUN_DIR;
  if (run) mkdirSync(run, { recursive: true });
  return mkdtempSync(path.join(run || tmpdir(), prefix));
}

/** A fresh temp directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'hostsync-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Every regular file under root as relPath -> sha256 of its bytes and its exec bit,
 * computed here independently of hostsync's own hashing. `skip` decides which
 * relative paths (files or directories) to leave out.
 */
export async function fileDigests(root: string, skip: (rel: string) => boolean = () => false): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  async function walk(dir: string, rel: string): Promise<void> {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (skip(r)) continue;
      const abs = path.join(dir, d.name);
      if (d.isDirectory()) await walk(abs, r);
      else if (d.isFile()) {
        const st = await lstat(abs);
        const exec = (st.mode & 0o111) !== 0 ? '+x' : '';
        out.set(r, createHash('sha256').update(await readFile(abs)).digest('hex') + exec);
      }
    }
  }
  await walk(root, '');
  return out;
}

export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}
