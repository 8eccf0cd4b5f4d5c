/**
 * A consumer of the published package, written as a user would: it imports 'hostsync'
 * by name. The library test compiles it with tsc against the .d.ts files the tarball
 * ships (so a type the README promises but the package lacks fails the test, and the
 * @ts-expect-error lines fail if a type silently became `any`), then
 * runs it and prints what it saw as one JSON object on stdout.
 */
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  EXIT,
  HostingClient,
  push,
  startEmulator,
  status,
  watch,
  type Emulator,
  type ExitCode,
  type PushOptions,
  type PushResult,
  type StatusResult,
  type WatchCycleEvent,
  type WatchEnd,
  type WatchEvent,
} from 'hostsync';

const emu: Emulator = await startEmulator({ port: 0 });
const dir = await mkdtemp(path.join(os.tmpdir(), 'hostsync-consumer-'));
try {
  await writeFile(path.join(dir, 'index.html'), '<title>from the library</title>\n');
  const opts: PushOptions = { dir, baseUrl: emu.baseUrl, apiKey: emu.apiKey, deployment: emu.deploymentId, apply: false };

  const pushed: PushResult = await push(opts);
  const written: number = pushed.changes.written;
  const code: ExitCode = pushed.exitCode ?? EXIT.ok;
  // The types are real, not `any` from a declaration that failed to resolve:
  // @ts-expect-error a count is a number
  const notAString: string = pushed.changes.written;
  // @ts-expect-error the options are checked
  await push({ ...opts, dryrun: true });
  void notAString;

  await writeFile(path.join(dir, 'app.css'), 'body { color: red }\n');
  const st: StatusResult = await status(opts);
  const refused: PushResult = await push({ ...opts, apiKey: `${emu.apiKey}_revoked` });

  const seen: WatchEvent['type'][] = [];
  const handle = watch(opts).on('*', (e) => seen.push(e.type));
  const cycle = await new Promise<WatchCycleEvent>((resolve) => handle.on('cycle', resolve));
  const end: WatchEnd = await handle.stop();

  const client = new HostingClient({ baseUrl: emu.baseUrl, apiKey: emu.apiKey, deploymentId: emu.deploymentId });
  const index = await client.files.index({});
  await client.close();

  process.stdout.write(
    `${JSON.stringify({
      pushed,
      written,
      code,
      status: st,
      refused,
      cycle,
      seen,
      end,
      // hostsync keeps its base record under .hostsync/ on the deployment: not one of the app's files.
      remote: index.entries.map((e) => e.path).filter((p) => !p.startsWith('.hostsync')).sort(),
      volume: emu.volume,
    })}\n`,
  );
} finally {
  await emu.stop();
  await rm(dir, { recursive: true, force: true });
}
