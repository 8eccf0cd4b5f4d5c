/** Shared by the emulator contract tests: a raw HTTP caller and a started emulator with a temp data dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  json: T;
}

export interface CallOpts {
  body?: unknown;
  /** null sends no Authorization header. */
  key?: string | null;
  query?: Record<string, string | number | boolean>;
}

/** Calls `${baseUrl}/api/v1${route}`; `route` may use "~" for the default deployment's path "/deployments/<id>". */
export async function call<T = any>(emu: RunningEmulator, method: string, route: string, opts: CallOpts = {}): Promise<Answer<T>> {
  const rel = route.replace('~', `/deployments/${emu.deploymentId}`);
  const url = new URL(`${emu.baseUrl}/api/v1${rel}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {};
  const key = opts.key === undefined ? emu.apiKey : opts.key;
  if (key !== null) headers.Authorization = `Bearer ${key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

export interface TestEmulator {
  emu: RunningEmulator;
  dataDir: string;
  close(): Promise<void>;
}

/** An emulator on a fresh temp data dir, removed on close. */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hostsync-emu-test-'));
  const emu = await startEmulator({ dataDir, ...opts });
  return {
    emu,
    dataDir,
    async close() {
      await emu.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
