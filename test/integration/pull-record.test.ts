/**
 * Issue 46, item 12: a `pull` with nothing else running warned "the deployment's base record
 * changed meanwhile (another push?)". Its batch was appended to this machine's copy of the
 * record, which was stale (another machine had pushed since this one last recorded; the pull
 * read the index, not the record), so the compare-and-swap failed. A lone pull now reads the
 * record when its copy is not the one listed (one request), appends its batch, and the warning
 * is left to another machine really recording meanwhile.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startEmulator } from '../../src/emulator/index.js';
import { readRemote } from '../../src/sync/remote-read/remote-read.js';
import { recordBaseChange } from '../../src/sync/record/remote-record.js';
import { openSession } from '../../src/sync/session.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function recordText(volume: string): Promise<string> {
  const names = (await readdir(path.join(volume, '.hostsync'))).filter((n) => n.endsWith('.rec'));
  expect(names).toHaveLength(1);
  return readFile(path.join(volume, '.hostsync', names[0]!), 'utf8');
}

describe('a lone pull records its batch (issue 46, item 12)', () => {
  it('after another machine pushed: no "changed meanwhile" warning, and the record holds the pull', async () => {
    const emu = await startEmulator({});
    const a = await tempDir('hostsync-pull-rec-a-');
    const b = await tempDir('hostsync-pull-rec-b-');
    cleanups.push(() => emu.close(), a.cleanup, b.cleanup);
    const env = envFor(emu);
    await writeTree(a.dir, { 'index.js': 'console.log(1);\n', 'notes.txt': 'one\n' });
    expect((await runCli(['push', '--no-apply', '--dir', a.dir], env)).code).toBe(0);

    // Machine B: a copy that pulled, then pushed once (so it holds a copy of the record).
    expect((await runCli(['pull', '--dir', b.dir], env)).code).toBe(0);
    await writeFile(path.join(b.dir, 'b.txt'), 'from b\n');
    expect((await runCli(['push', '--no-apply', '--dir', b.dir], env)).code).toBe(0);

    // Machine A pushes again: B's copy of the record is now behind.
    await writeFile(path.join(a.dir, 'notes.txt'), 'two\n');
    expect((await runCli(['push', '--no-apply', '--dir', a.dir], env)).code).toBe(0);

    // B pulls, nothing else running.
    const pull = await runCli(['pull', '--json', '--dir', b.dir], env);
    expect(pull.code).toBe(0);
    const out = JSON.parse(pull.stdout);
    expect(out.warnings.join('\n')).not.toMatch(/changed meanwhile/);
    expect(await readFile(path.join(b.dir, 'notes.txt'), 'utf8')).toBe('two\n');
    expect(await recordText(emu.volume)).toMatch(/"kind":"pull"/);
  }, 60_000);

  it('still warns when another machine really recorded after the command read the deployment', async () => {
    const emu = await startEmulator({});
    const a = await tempDir('hostsync-pull-rec-a-');
    const b = await tempDir('hostsync-pull-rec-b-');
    cleanups.push(() => emu.close(), a.cleanup, b.cleanup);
    const env = envFor(emu);
    await writeTree(a.dir, { 'index.js': 'console.log(1);\n' });
    expect((await runCli(['push', '--no-apply', '--dir', a.dir], env)).code).toBe(0);
    await writeTree(b.dir, { 'index.js': 'console.log(1);\n' });
    expect((await runCli(['push', '--no-apply', '--dir', b.dir], env)).code).toBe(0);

    const session = await openSession(await loadConfig({ flags: { dir: b.dir }, env }));
    try {
      // B reads the deployment (as a pull does) ...
      const remote = await readRemote(session.client, session.matcher, null);
      // ... then A records a push before B records its batch.
      await writeFile(path.join(a.dir, 'index.js'), 'console.log(2);\n');
      expect((await runCli(['push', '--no-apply', '--dir', a.dir], env)).code).toBe(0);
      const base = (await session.store.load()).base!;
      const after = new Map(base);
      after.set('index.js', { ...base.get('index.js')!, hash: '0123456789abcdef' });
      expect(await recordBaseChange(session, 'pull', base, after, remote)).toMatch(/changed meanwhile/);
    } finally {
      await session.close();
    }
  }, 60_000);
});
