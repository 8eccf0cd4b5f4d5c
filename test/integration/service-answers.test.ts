/**
 * The CLI against a service that answers wrongly (issue 12): a malformed answer (item 11),
 * no answer at all (item 12).
 * A scripted loopback service stands in for the API, answering everything well formed
 * except the one call under test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDir, tempDir, writeTree } from '../helpers/tree.js';
import { runCli } from '../helpers/cli.js';
import { startFakeService, WELL_FORMED, type FakeService } from '../remote/fake-service.js';
import { EXIT } from '../../src/errors.js';
import { runStatus } from '../../src/app/status.js';
import type { Reply } from '../remote/fake-service.js';
import { testKey } from '../helpers/keys.js';

let work: { dir: string; cleanup: () => Promise<void> };
/** The client's cache folder (its request ledger): the test run's own, which goes when the run ends. */
let cacheDir: string;
let service: FakeService | undefined;

beforeEach(async () => {
  work = await tempDir('hostsync-answers-');
  cacheDir = runDir('cache-');
  await writeTree(work.dir, { 'a.js': 'a\n' });
});
afterEach(async () => {
  await service?.close();
  service = undefined;
  await work.cleanup();
});

const env = (s: FakeService) => ({
  HOSTSYNC_API_KEY: testKey('answers'),
  HOSTSYNC_BASE_URL: s.baseUrl,
  HOSTSYNC_DEPLOYMENT: 'dep-1',
  HOSTSYNC_CACHE_DIR: cacheDir,
});

describe('a malformed answer (review 11)', () => {
  it('status ends with one line naming the call and what is wrong, exit 1, never a TypeError or an empty remote', async () => {
    // An index without its entries: read as data it would be an empty volume (everything "new").
    service = await startFakeService((r) => (r.path.endsWith('/files/index') ? { json: { unchanged: false, digest: 'd', truncated: false } } : { json: WELL_FORMED }));
    const r = await runCli(['status', '--dir', work.dir], env(service));
    expect(r.code).toBe(EXIT.failed);
    expect(r.stderr).toMatch(/^.*unexpected answer from the service to files\.index: entries: missing.*$/m);
    expect(r.stderr + r.stdout).not.toMatch(/TypeError|Cannot read properties|at .*\.js:\d+/);
  });

  it('push --json reports it as a failure with the same message, and writes nothing', async () => {
    service = await startFakeService((r) =>
      r.path.endsWith('/files/index')
        ? { json: { unchanged: false, digest: 'd', truncated: false, entries: [{ path: 'a.js', type: 'file', sizeBytes: '2', modifiedAt: '', mode: '0644' }] } }
        : { json: WELL_FORMED },
    );
    const r = await runCli(['push', '--json', '--dir', work.dir], env(service));
    expect(r.code).toBe(EXIT.failed);
    const out = JSON.parse(r.stdout) as { ok: boolean; error: string };
    expect(out.ok).toBe(false);
    expect(out.error).toBe('unexpected answer from the service to files.index: entries[0].sizeBytes: expected number, got "2"');
    expect(service.seen.filter((s) => !s.path.endsWith('/files/index') && s.method !== 'GET')).toEqual([]);
  });
});

describe('a service that accepts and never answers (review 12)', () => {
  const silent = (): Promise<Reply> => new Promise<Reply>(() => {});

  it('status ends with one line saying which call went unanswered for how long, exit 1, after one repeat', async () => {
    service = await startFakeService(silent);
    const r = await runCli(['status', '--dir', work.dir], { ...env(service), HOSTSYNC_TIMEOUT: '0.3' });
    expect(r.code).toBe(EXIT.failed);
    const line = r.stderr.split('\n').find((l) => l.includes('did not answer')) ?? r.stderr;
    expect(line).toMatch(/the service accepted the connection but did not answer files\.index within 0\.3 s; it is overloaded or stuck: try again later \(HOSTSYNC_TIMEOUT=<seconds> waits longer\)\. Gave up after 2 attempts\./);
    // A call that timed out is repeated once, not five times.
    expect(service.seen.filter((s) => s.path.endsWith('/files/index'))).toHaveLength(2);
  });

  it('the command\'s deadline ends it even when each call may wait longer', async () => {
    service = await startFakeService(silent);
    const { result } = await runStatus({ dir: work.dir, env: env(service), timeoutSeconds: 60, deadlineSeconds: 0.5 });
    expect(result.exitCode).toBe(EXIT.failed);
    expect(result.error).toBe(
      "files.index: gave up when the command's deadline of 0.5 s passed; the service answers too slowly: try again later (HOSTSYNC_DEADLINE=<seconds> allows longer)",
    );
    // The index once, not repeated past the deadline; beside it, once, the deployment's
    // record, which status asks for as its comparison starts.
    expect(service.seen.filter((s) => s.path.endsWith('/files/index'))).toHaveLength(1);
    expect(service.seen.filter((s) => !s.path.endsWith('/files/index')).map((s) => s.method)).toEqual(['GET']);
  });

  it('a bad HOSTSYNC_TIMEOUT is a usage error naming it', async () => {
    service = await startFakeService(silent);
    const r = await runCli(['status', '--dir', work.dir], { ...env(service), HOSTSYNC_TIMEOUT: 'soon' });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/HOSTSYNC_TIMEOUT="soon" is not a number of seconds above 0: e\.g\. HOSTSYNC_TIMEOUT=60/);
    expect(service.seen).toHaveLength(0);
  });
});
