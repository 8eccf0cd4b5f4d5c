/**
 * Issue 46, item 14: outside any project `hostsync status` said "no service address"
 * (the project is what is missing); and with an unreachable `--base-url` the error asked
 * whether HOSTSYNC_BASE_URL was right, which nobody had set. It names where the address
 * came from: the flag, the environment or hostsync.json.
 */
import { createServer } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tree.js';

let work: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  work = await tempDir('hostsync-where-from-');
});
afterEach(async () => {
  await work.cleanup();
});

/** A loopback port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('errors that name what is missing, and where a setting came from', () => {
  it('status outside any project: no hostsync.json here or above, run hostsync init', async () => {
    const r = await runCli(['status'], { HOSTSYNC_API_KEY: 'k' }, { cwd: work.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hostsync: no hostsync\.json here or above \(.*\): run `hostsync init` in the project folder, or pass --dir with it\n$/);
  });

  it('an unreachable address names where it came from: --base-url, HOSTSYNC_BASE_URL or hostsync.json', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ deployment: 'dep_1' }));
    const env = { HOSTSYNC_API_KEY: 'k', HOSTSYNC_TIMEOUT: '5' };

    const flag = await runCli(['status', '--base-url', url], env, { cwd: work.dir });
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain(`could not reach 127.0.0.1`);
    expect(flag.stderr).toContain(`Is the service up, and is --base-url (${url}) right?`);
    expect(flag.stderr).not.toContain('HOSTSYNC_BASE_URL');

    const fromEnv = await runCli(['status'], { ...env, HOSTSYNC_BASE_URL: url }, { cwd: work.dir });
    expect(fromEnv.code).toBe(1);
    expect(fromEnv.stderr).toContain(`is HOSTSYNC_BASE_URL (${url}) right?`);

    // Loopback http in hostsync.json needs no trust step.
    await writeFile(path.join(work.dir, 'hostsync.json'), JSON.stringify({ deployment: 'dep_1', baseUrl: url }));
    const fromFile = await runCli(['status'], env, { cwd: work.dir });
    expect(fromFile.code, fromFile.stderr).toBe(1);
    expect(fromFile.stderr).toContain(`is "baseUrl" in hostsync.json (${url}) right?`);
  });
});
