/**
 * Issue 46, item 6: a slow install made the apply outlast the client's timeout; push stopped
 * with "did not answer deployments.apply within 50 s", exit 1, without listing the files it
 * had written, and `status` said "An apply is pending" for good after the app came up.
 * Here a loopback proxy holds the apply's answer past HOSTSYNC_TIMEOUT (the service went on
 * and applied meanwhile, as the real one does).
 */
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** Passes everything to `target`; the answer to deployments.apply only once `hold` resolves. */
async function holdingProxy(target: string, hold: () => Promise<void>): Promise<{ baseUrl: string; server: Server }> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const headers: IncomingHttpHeaders = { ...req.headers, host: to.host };
    const out = request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (answer) => {
      const isApply = new URL(req.url ?? '/', 'http://x').pathname.endsWith('/apply');
      void (isApply ? hold() : Promise.resolve()).then(() => {
        if (res.destroyed) return answer.resume();
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('an apply the service does not answer in time (issue 46, item 6)', () => {
  it('push lists what landed and says the apply is still running (exit 1); status clears the mark once the app is up', async () => {
    const emu = await startEmulator({});
    const work = await tempDir('hostsync-apply-timeout-');
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const proxy = await holdingProxy(emu.baseUrl, () => released);
    cleanups.push(
      async () => {
        release();
        proxy.server.closeAllConnections();
        await new Promise((r) => proxy.server.close(r));
      },
      () => emu.close(),
      work.cleanup,
    );
    await writeTree(work.dir, {
      'index.js': "require('node:http').createServer((q, s) => s.end('up')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n",
      'hostsync.json': JSON.stringify({ applyWaitSeconds: 0 }),
    });
    const env = { HOSTSYNC_API_KEY: emu.apiKey, HOSTSYNC_BASE_URL: proxy.baseUrl, HOSTSYNC_DEPLOYMENT: emu.deploymentId, HOSTSYNC_TIMEOUT: '2' };

    const push = await runCli(['push', '--dir', work.dir], env);
    expect(push.code).toBe(1);
    expect(push.stdout).toMatch(/^\s*A\s+index\.js/m);
    expect(push.stdout).toMatch(/apply: no answer to the apply yet: .*deployments\.apply.*the files above landed, and the apply is most likely still running there/);
    expect(push.stdout).toContain('`hostsync status` shows when the app is up');

    // The service finished the apply meanwhile: the app is up, and status says nothing is pending.
    release();
    const status = await runCli(['status', '--json', '--dir', work.dir], env);
    const s = JSON.parse(status.stdout);
    expect(s.appState).toBe('running');
    expect(s.applyPending).toBe(false);
    expect(s.applyUnansweredAt).toBeNull();
    const again = await runCli(['status', '--dir', work.dir], env);
    expect(again.stdout).not.toContain('An apply is pending');
  }, 60_000);
});
