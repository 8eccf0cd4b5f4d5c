/**
 * A server that trickles its answer (issue 28, item 4): headers, then `{`, then a space
 * every half second, for ever. undici's timeouts are idle timeouts that each byte
 * restarts, so before the fix every command hung past HOSTSYNC_TIMEOUT and
 * HOSTSYNC_DEADLINE. Each case runs the built CLI under a generous safety bound (only
 * there to stop a hung child) and asserts that it ended by itself, and with which error.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDir, tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { EXIT } from '../../src/errors.js';
import { testKey } from '../helpers/keys.js';

/** Kills a child still running after this: a hang, reported as `killed`, not a timing threshold. */
const SAFETY_MS = 60_000;

let work: { dir: string; cleanup: () => Promise<void> };
/** The client's cache folder (its request ledger): the test run's own, which goes when the run ends. */
let cacheDir: string;
let server: http.Server;
let baseUrl: string;
let requests = 0;

beforeEach(async () => {
  work = await tempDir('hostsync-trickle-');
  cacheDir = runDir('cache-');
  await writeTree(work.dir, { 'a.js': 'a\n' });
  requests = 0;
  server = http.createServer((req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{');
    const t = setInterval(() => res.write(' '), 500);
    res.on('close', () => clearInterval(t));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await work.cleanup();
});

function hs(args: string[], extra: Record<string, string>): Promise<{ code: number; stderr: string; killed: boolean }> {
  return runCli([...args, '--dir', work.dir], {
    HOSTSYNC_API_KEY: testKey('trickle'), HOSTSYNC_BASE_URL: baseUrl, HOSTSYNC_DEPLOYMENT: 'dep-1', HOSTSYNC_CACHE_DIR: cacheDir,
    ...extra,
  }, { killAfterMs: SAFETY_MS });
}
const status = (extra: Record<string, string>) => hs(['status'], extra);

describe('a server trickling its answer', () => {
  it('HOSTSYNC_DEADLINE=3 HOSTSYNC_TIMEOUT=2: status ends by itself with the deadline\'s one-line error', async () => {
    const r = await status({ HOSTSYNC_DEADLINE: '3', HOSTSYNC_TIMEOUT: '2' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(/gave up when the command's deadline of 3 s passed; the service answers too slowly: try again later \(HOSTSYNC_DEADLINE=<seconds> allows longer\)/);
    // The first attempt was cut by HOSTSYNC_TIMEOUT and repeated: the deadline ended the repeat.
    expect(requests).toBeGreaterThanOrEqual(2);
  }, SAFETY_MS + 10_000);

  it('HOSTSYNC_DEADLINE alone: the deadline ends it, though each call could wait 30 s', async () => {
    const r = await status({ HOSTSYNC_DEADLINE: '3' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(/gave up when the command's deadline of 3 s passed.*\(HOSTSYNC_DEADLINE=<seconds> allows longer\)/);
  }, SAFETY_MS + 10_000);

  it('HOSTSYNC_TIMEOUT alone bounds each request\'s whole answer, not the gaps in it', async () => {
    const r = await status({ HOSTSYNC_TIMEOUT: '1' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(/the service did not finish its answer to [a-z.]+ within 1 s; it is overloaded or stuck: try again later \(HOSTSYNC_TIMEOUT=<seconds> waits longer\)\. Gave up after 2 attempts\./);
  }, SAFETY_MS + 10_000);
});

/**
 * Issue 44, item 8: the commands that made their own client (open, logs, exec, create,
 * link) did not get the deadline; against this server they ran 60-120 s with a 4 s one
 * (each attempt waiting out its whole answer timeout). Now every command's client is
 * made in one place (sync/command-client.ts).
 */
describe('every command honours HOSTSYNC_DEADLINE against a trickling server', () => {
  const commands: Array<[string, string[]]> = [
    ['open', ['open']],
    ['logs', ['logs']],
    ['exec', ['exec', '--', 'true']],
    ['create', ['create', 'new-app']],
    ['link', ['link', '--name', 'app']],
  ];
  it.each(commands)('%s ends by itself with the deadline\'s one-line error', async (_name, args) => {
    const r = await hs(args, { HOSTSYNC_DEADLINE: '4' });
    expect(r.killed).toBe(false);
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(/gave up when the command's deadline of 4 s passed; the service answers too slowly: try again later \(HOSTSYNC_DEADLINE=<seconds> allows longer\)/);
  }, SAFETY_MS + 10_000);
});
