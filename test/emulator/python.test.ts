/**
 * The python runtime (issue #30): the emulator runs the interpreter the startup config's
 * runtimeVersion names, reports the version it really runs, says so when that version is
 * not on the machine, and installs requirements.txt into a per-deployment virtual
 * environment, as it runs npm install for node. Offline: the one requirement installed is
 * a wheel the test builds, and pip is told never to reach an index.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DeploymentRunner, type RunnerOptions } from '../../src/emulator/runner.js';
import { call, startTestEmulator } from './api-client.js';
import { tempDir, writeTree } from '../helpers/tree.js';

/** What `python3` on the emulator's PATH is: a deployment with no runtimeVersion runs it. */
const SYSTEM_PYTHON = execFileSync('python3', ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3])'], { encoding: 'utf8' }).trim();

/** A stdlib web app on SERVER_PORT; `body` is what it answers. */
const webApp = (body: string, imports = ''): string =>
  `import os, http.server\n${imports}\n` +
  'class H(http.server.BaseHTTPRequestHandler):\n' +
  '    def do_GET(self):\n' +
  `        b = (${body}).encode()\n` +
  '        self.send_response(200); self.send_header("Content-Type", "text/html"); self.end_headers(); self.wfile.write(b)\n' +
  '    def log_message(self, *a): pass\n' +
  'print("serving on", os.environ["SERVER_PORT"])\n' +
  'http.server.HTTPServer(("0.0.0.0", int(os.environ["SERVER_PORT"])), H).serve_forever()\n';

/** Writes a pure-python wheel of package `greet` (greet.hello(who)) into `dir`; returns its file name. */
function buildWheel(dir: string): string {
  const name = 'greet-1.0-py3-none-any.whl';
  const script = [
    'import sys, zipfile',
    'z = zipfile.ZipFile(sys.argv[1], "w")',
    'z.writestr("greet/__init__.py", "def hello(who):\\n    return \'<title>hello \' + who + \'</title>\'\\n")',
    'z.writestr("greet-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: greet\\nVersion: 1.0\\n")',
    'z.writestr("greet-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")',
    'z.writestr("greet-1.0.dist-info/RECORD", "greet/__init__.py,,\\ngreet-1.0.dist-info/METADATA,,\\ngreet-1.0.dist-info/WHEEL,,\\ngreet-1.0.dist-info/RECORD,,\\n")',
    'z.close()',
  ].join('\n');
  execFileSync('python3', ['-c', script, path.join(dir, name)]);
  return name;
}

let root: { dir: string; cleanup: () => Promise<void> };
const runners: DeploymentRunner[] = [];
const pipNoIndexBefore = process.env.PIP_NO_INDEX;
beforeAll(async () => {
  root = await tempDir('hostsync-python-');
  // The install passes PIP_* on to pip: no test may depend on an index.
  process.env.PIP_NO_INDEX = '1';
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.dispose()));
});
afterAll(async () => {
  if (pipNoIndexBefore === undefined) delete process.env.PIP_NO_INDEX;
  else process.env.PIP_NO_INDEX = pipNoIndexBefore;
  await root.cleanup();
});

let n = 0;
async function runnerFor(files: Record<string, string>, opts: Partial<RunnerOptions> = {}): Promise<{ r: DeploymentRunner; volume: string }> {
  const volume = path.join(root.dir, `vol-${n++}`);
  await writeTree(volume, files);
  const r = new DeploymentRunner({ volume, runtime: 'python', entryFile: 'app.py', ...opts });
  runners.push(r);
  return { r, volume };
}

describe('the python runtime', () => {
  it('runs a stdlib http.server app on the machine\'s python and reports that version', async () => {
    const { r } = await runnerFor({ 'app.py': webApp('"<title>py web</title>"') });
    const result = await r.apply({});
    expect(result.state).toBe('running');
    expect(result.http).toMatchObject({ status: 200, ok: true, title: 'py web' });
    expect(result.startup).toMatchObject({ runtime: 'python', runtimeVersion: SYSTEM_PYTHON, entryFile: 'app.py', startCommand: 'if [ -f requirements.txt ]; then pip install -r requirements.txt; fi; python app.py' });
    expect(result.logs).toContain(`serving on ${r.port}`);
  });

  it('a runtimeVersion the machine lacks is said, never run on another python: offline, with the line and a hint', async () => {
    const { r } = await runnerFor({ 'app.py': webApp('"x"') }, { runtimeVersion: '9.9' });
    const result = await r.apply({});
    expect(result.state).toBe('offline');
    expect(result.startup.runtimeVersion).toBe('9.9');
    const line = result.logs.find((l) => l.startsWith('[emulator] python 9.9 is not on this machine'));
    expect(line).toMatch(new RegExp(`it has python [^)]*${SYSTEM_PYTHON.replace(/\./g, '\\.')}`));
    expect(result.hint).toMatch(/^The app was not started: python 9\.9 is not on this machine/);
    expect(result.logs.some((l) => l.startsWith('serving on'))).toBe(false);
  });

  it('installs requirements.txt into a venv outside the volume, and the app imports what it installed', async () => {
    const volume = path.join(root.dir, `vol-${n}`);
    await writeTree(volume, { 'app.py': webApp('greet.hello("wheel")', 'import greet') });
    const wheel = buildWheel(volume);
    const { r } = await runnerFor({ 'requirements.txt': `# local wheel\n./${wheel}\n` });
    const result = await r.apply({});
    expect(result.state, result.logs.join('\n')).toBe('running');
    expect(result.http).toMatchObject({ status: 200, title: 'hello wheel' });
    const logs = result.logs.join('\n');
    expect(logs).toContain('[emulator] installing: pip install -r requirements.txt (requirements.txt lists 1 requirement)');
    expect(logs).toContain('[emulator] pip install -r requirements.txt done');
    expect(existsSync(`${volume}.venv`)).toBe(true);
    expect(existsSync(path.join(volume, '.venv'))).toBe(false);
    const again = await r.apply({});
    expect(again.state).toBe('running');
    expect(again.logs).toContain('[emulator] installing: pip install -r requirements.txt (requirements.txt and the python version unchanged since the last install; the default start installs at every boot)');
  });

  it('an uninstallable requirement fails the install in the console, as npm\'s does: offline, exit code, no app', async () => {
    const { r } = await runnerFor({ 'app.py': webApp('"x"', 'import flask_never_there'), 'requirements.txt': 'flask-never-there==9.9.9\n' });
    const result = await r.apply({});
    expect(result.state).toBe('offline');
    const logs = result.logs.join('\n');
    expect(logs).toMatch(/No matching distribution found for flask-never-there==9\.9\.9/);
    expect(logs).toMatch(/\[emulator\] pip install -r requirements\.txt exited with code [1-9]\d*/);
    expect(result.hint).toMatch(/^pip install -r requirements\.txt exited with code [1-9]\d*, so the app was not started/);
    expect(result.logs.some((l) => l.startsWith('serving on'))).toBe(false);
  });

  it('a python bot that never listens is running once it stays up', async () => {
    const { r } = await runnerFor({ 'bot.py': 'import time\nprint("Logged in as PyBot")\nwhile True: time.sleep(60)\n' }, { entryFile: 'bot.py' });
    const result = await r.apply({});
    expect(result.state).toBe('running');
    expect(result.logs).toContain('Logged in as PyBot');
  });
});

describe('the python runtime over the API', () => {
  it('create with runtime python and runtimeVersion: the record reports the version that runs; an empty requirements.txt installs nothing', async () => {
    const t = await startTestEmulator();
    try {
      const [major, minor] = SYSTEM_PYTHON.split('.');
      const made = await call(t.emu, 'POST', '/deployments', { body: { name: 'py', source: 'blank', runtime: 'python', runtimeVersion: `${major}.${minor}`, entryFile: 'app.py' } });
      expect(made.status).toBe(200);
      const id = made.json.deployment.id as string;
      await writeTree(path.join(t.dataDir, 'volumes', id), { 'app.py': webApp('"<title>dev</title>"'), 'requirements.txt': '\n# nothing yet\n' });
      await call(t.emu, 'PATCH', `/deployments/${id}/startup`, { body: { entryFile: 'app.py' } });
      const applied = await call(t.emu, 'POST', `/deployments/${id}/apply`, { body: {} });
      expect(applied.json.state, applied.json.logs.join('\n')).toBe('running');
      expect(applied.json.http.title).toBe('dev');
      expect(applied.json.logs.join('\n')).not.toContain('installing');
      // The version that runs, in full, where the request named only major.minor.
      expect(applied.json.startup.runtimeVersion).toMatch(new RegExp(`^${major}\\.${minor}\\.\\d+$`));
      const startup = await call(t.emu, 'GET', `/deployments/${id}/startup`);
      expect(startup.json.runtimeVersion).toBe(applied.json.startup.runtimeVersion);
    } finally {
      await t.close();
    }
  });
});
