/**
 * The running `hostsync dev` of a project, for the other commands run beside it (status,
 * logs, exec, env, diff, doctor) when nothing names a service: dev records its port and
 * process in `.hostsync/dev/dev.json`, and its emulator keeps its key and deployments in
 * `.hostsync/dev/emulator/emulator.json`. A record whose process is gone is no session.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface DevEmulator {
  baseUrl: string;
  apiKey: string;
  deploymentId: string;
}

/** `.hostsync/dev/` of a project root. */
export const devStateDir = (projectRoot: string): string => path.join(projectRoot, '.hostsync', 'dev');

const readJson = async (file: string): Promise<Record<string, unknown> | null> => {
  try {
    const v = JSON.parse(await readFile(file, 'utf8')) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The dev emulator of `projectRoot` while its `hostsync dev` runs; null otherwise. */
export async function devEmulatorFor(projectRoot: string): Promise<DevEmulator | null> {
  const dir = devStateDir(projectRoot);
  const record = await readJson(path.join(dir, 'dev.json'));
  const port = record?.port;
  const pid = record?.pid;
  if (typeof port !== 'number' || !Number.isInteger(port) || typeof pid !== 'number' || !Number.isInteger(pid) || !alive(pid)) return null;
  const emu = await readJson(path.join(dir, 'emulator', 'emulator.json'));
  const apiKey = emu?.apiKey;
  const first = Array.isArray(emu?.deployments) ? (emu.deployments[0] as Record<string, unknown> | undefined) : undefined;
  if (typeof apiKey !== 'string' || typeof first?.id !== 'string') return null;
  return { baseUrl: `http://127.0.0.1:${port}`, apiKey, deploymentId: first.id };
}
