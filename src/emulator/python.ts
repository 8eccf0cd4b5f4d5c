/**
 * The python runtime: which interpreter runs a deployment, and the install its default
 * start runs. The service's Python image runs the runtimeVersion the startup config
 * names and installs requirements.txt before the app starts; the emulator does the same
 * with the interpreters this machine has, and where the version asked for is not among
 * them it says so rather than running another (a 3.11 quietly running a "3.12" app hides
 * exactly the bugs a user runs the emulator to find).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { InstallStep } from './install.js';
import { EMULATOR_PYTHON_PROBE_TIMEOUT_MS } from './tunables.js';

export type PythonLookup =
  | { ok: true; path: string; version: string }
  | { ok: false; wanted: string; have: string[] };

const PRINT_VERSION = 'import sys; print("%d.%d.%d" % sys.version_info[:3]); print(sys.executable)';

/**
 * The full version ("3.11.7") an interpreter reports and its own absolute path, or null
 * when it does not run (a pyenv shim for a version not selected). The path matters: the
 * app runs with another PATH than the emulator's, where `python3` may be another python.
 */
function probe(binary: string): Promise<{ version: string; path: string } | null> {
  return new Promise((resolve) => {
    execFile(binary, ['-c', PRINT_VERSION], { timeout: EMULATOR_PYTHON_PROBE_TIMEOUT_MS, env: process.env }, (err, stdout) => {
      const [version = '', executable = ''] = String(stdout).trim().split(/\r?\n/);
      resolve(err || !/^\d+\.\d+\.\d+$/.test(version) || !path.isAbsolute(executable) ? null : { version, path: executable });
    });
  });
}

/** A version asked for ("3.12", "3", "3.12.1", or a bare number 3.12) is met by a full version with that prefix. */
export function versionMatches(wanted: string, full: string): boolean {
  return full === wanted || full.startsWith(`${wanted}.`);
}

/** Interpreters installed by pyenv (its shims only run the selected version, so their binaries are looked up directly). */
async function pyenvBinaries(): Promise<string[]> {
  const root = process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv');
  const versions = await readdir(path.join(root, 'versions')).catch(() => [] as string[]);
  return versions.map((v) => path.join(root, 'versions', v, 'bin', 'python3'));
}

/** Cached per wanted version: interpreters do not come and go while the emulator runs. */
const lookups = new Map<string, Promise<PythonLookup>>();

/**
 * The interpreter for `wanted` (the startup config's runtimeVersion; empty: whatever
 * `python3` is). Candidates: `python<major.minor>`, `python3`, `python` on PATH, then
 * pyenv's versions; the first whose own report matches wins.
 */
export function findPython(wanted: string | undefined): Promise<PythonLookup> {
  const key = (wanted ?? '').trim();
  let found = lookups.get(key);
  if (!found) {
    found = lookUp(key);
    lookups.set(key, found);
  }
  return found;
}

async function lookUp(wanted: string): Promise<PythonLookup> {
  const parts = wanted.split('.');
  const named = wanted === '' ? [] : [`python${parts.slice(0, 2).join('.')}`];
  const candidates = [...named, 'python3', 'python', ...(await pyenvBinaries())];
  const have: string[] = [];
  for (const candidate of candidates) {
    const found = await probe(candidate);
    if (found === null) continue;
    if (wanted === '' || versionMatches(wanted, found.version)) return { ok: true, ...found };
    if (!have.includes(found.version)) have.push(found.version);
  }
  return { ok: false, wanted: wanted || 'any', have };
}

/** The one line a start that cannot run the version asked for writes, and its hint. */
export function missingPythonLine(lookup: Extract<PythonLookup, { ok: false }>): string {
  const has = lookup.have.length === 0 ? 'no python at all' : `python ${lookup.have.join(', ')}`;
  return `python ${lookup.wanted} is not on this machine (it has ${has}): set the deployment's runtimeVersion to one it has, or install python${lookup.wanted}; nothing else is run in its place`;
}

const readOr = (file: string): Promise<string | null> => readFile(file, 'utf8').catch(() => null);

/** Requirement lines of a requirements.txt: neither blank nor a comment. */
function requirementCount(text: string): number {
  return text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trim().startsWith('#')).length;
}

const shq = (w: string): string => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);

/**
 * The install a python app's default start runs: a virtual environment for the
 * deployment (outside its volume, so a sync never sees it), made with the interpreter
 * that runs the app, then `pip install -r requirements.txt` into it (or `pip install .`
 * for a pyproject.toml without a requirements.txt). Null when the project lists nothing.
 */
export async function pythonInstallStep(volume: string, venv: string, python: { path: string; version: string }): Promise<InstallStep | null> {
  const requirements = await readOr(path.join(volume, 'requirements.txt'));
  const pyproject = requirements === null ? await readOr(path.join(volume, 'pyproject.toml')) : null;
  let what: string;
  let pipArgs: string[];
  let because: string;
  if (requirements !== null) {
    const count = requirementCount(requirements);
    if (count === 0) return null;
    what = 'pip install -r requirements.txt';
    pipArgs = ['install', '-r', 'requirements.txt'];
    because = `requirements.txt lists ${count} requirement${count === 1 ? '' : 's'}`;
  } else if (pyproject !== null) {
    what = 'pip install .';
    pipArgs = ['install', '.'];
    because = 'pyproject.toml';
  } else {
    return null;
  }
  const venvPython = path.join(venv, 'bin', 'python');
  // --clear: an install runs only when the manifest or the version changed, and then starts
  // afresh, as the service's reinstall does. --without-pip: the venv is filled by the
  // interpreter's own pip (--python), which spares ensurepip's copy of pip (a minute on a
  // busy machine) in every deployment.
  const script =
    `${shq(python.path)} -m venv --clear --without-pip ${shq(venv)} && ` +
    `${shq(python.path)} -m pip --python ${shq(venvPython)} ${pipArgs.map(shq).join(' ')} --no-input --disable-pip-version-check`;
  return {
    display: what,
    command: '/bin/sh',
    args: ['-c', script],
    because,
    digest: createHash('sha256').update(python.version).update('\0').update(requirements ?? pyproject ?? '').digest('hex'),
    output: venv,
    needMB: 0,
    needFor: what,
    manifests: requirements !== null ? 'requirements.txt and the python version' : 'pyproject.toml and the python version',
  };
}

/** The interpreter of a deployment's venv when an install made one with this version, else null. */
export async function venvPython(venv: string, version: string): Promise<string | null> {
  const cfg = await readOr(path.join(venv, 'pyvenv.cfg'));
  const m = cfg === null ? null : /^version(?:_info)?\s*=\s*(\S+)/m.exec(cfg);
  if (m === null || m[1] !== version) return null;
  const bin = path.join(venv, 'bin', 'python');
  return stat(bin).then(() => bin, () => null);
}
