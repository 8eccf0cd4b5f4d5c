/**
 * A shared budget ledger full of unanswered entries owned by a live pid (issue 28,
 * item 5): in practice a killed hostsync whose pid was reused, or one stopped with
 * Ctrl-Z. Before the fix `HOSTSYNC_DEADLINE=5 hostsync status` waited for ever, silently.
 * The built CLI runs under a generous safety bound (only there to stop a hung child).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { startFakeService, WELL_FORMED, type FakeService } from '../remote/fake-service.js';
import { keyIdOf, ledgerFile, type LedgerEntry } from '../../src/remote/ledger.js';
import { LEDGER_IN_FLIGHT_MAX_MS } from '../../src/remote/tunables.js';
import { EXIT } from '../../src/errors.js';
import { testKey } from '../helpers/keys.js';

const SAFETY_MS = 60_000;
const HOUR = 3600_000;
const KEY = testKey('ledger_stuck_cli');

let work: { dir: string; cleanup: () => Promise<void> };
let service: FakeService;
let file: string;

beforeEach(async () => {
  work = await tempDir('hostsync-ledger-stuck-');
  await writeTree(work.dir, { 'project/a.js': 'a\n' });
  service = await startFakeService(() => ({ json: WELL_FORMED }));
  file = ledgerFile(path.join(work.dir, 'cache', 'budget'), new URL(service.baseUrl).origin);
  await mkdir(path.dirname(file), { recursive: true });
});
afterEach(async () => {
  await service.close();
  await work.cleanup();
});

/** 120 unanswered entries of this test's own process: a pid that is certainly alive. */
async function writeLedger(sentAt: number): Promise<void> {
  const entries: LedgerEntry[] = Array.from({ length: 120 }, () => ({
    keyId: keyIdOf(KEY), pid: process.pid, host: hostname(), sentAt, windowMs: 60_000, expiresAt: null,
  }));
  await writeFile(file, JSON.stringify({ version: 1, entries }));
}

function status(extra: Record<string, string>): Promise<{ code: number; stderr: string; killed: boolean }> {
  return runCli(['status', '--dir', path.join(work.dir, 'project')], {
    HOSTSYNC_API_KEY: KEY, HOSTSYNC_BASE_URL: service.baseUrl, HOSTSYNC_DEPLOYMENT: 'dep-1', HOSTSYNC_CACHE_DIR: path.join(work.dir, 'cache'),
    ...extra,
  }, { killAfterMs: SAFETY_MS });
}

describe('a ledger held by a live pid\'s unanswered requests', () => {
  it('HOSTSYNC_DEADLINE=5: status says what it waits for, then ends at the deadline', async () => {
    await writeLedger(Date.now());
    const r = await status({ HOSTSYNC_DEADLINE: '5' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    const waiting = r.stderr.split('\n').filter((l) => l.includes('waiting for the rate budget'));
    // Once, at the default log level, naming the slots, the pid, until when and the file.
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toContain(`120 of 120 slots are held by pid ${process.pid} (120 unanswered); room by `);
    expect(waiting[0]).toContain(`(ledger ${file})`);
    expect(r.stderr).toMatch(
      /gave up when the command's deadline of 5 s passed; the rate budget shared with other hostsync processes stayed full: try again later \(HOSTSYNC_DEADLINE=<seconds> allows longer\)/,
    );
    expect(service.seen).toHaveLength(0);
  }, SAFETY_MS + 10_000);

  it('entries older than the longest a request may take are void: status goes ahead', async () => {
    // An hour old, no bound of their own: past LEDGER_IN_FLIGHT_MAX_MS.
    expect(LEDGER_IN_FLIGHT_MAX_MS).toBeLessThan(HOUR);
    await writeLedger(Date.now() - HOUR);
    const r = await status({ HOSTSYNC_DEADLINE: '30' });
    expect(r.killed).toBe(false);
    expect(r.stderr).not.toContain('waiting for the rate budget');
    expect(r.stderr).not.toContain('deadline');
    expect(service.seen.length).toBeGreaterThan(0);
    const left = (JSON.parse(await readFile(file, 'utf8')) as { entries: LedgerEntry[] }).entries;
    expect(left.filter((e) => e.pid === process.pid)).toEqual([]);
  }, SAFETY_MS + 10_000);
});
