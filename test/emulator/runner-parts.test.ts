import { describe, expect, it } from 'vitest';
import { planFor } from '../../src/emulator/launch-plan.js';
import { hintFor, type RunFacts } from '../../src/emulator/run-hints.js';
import { appEnvOf } from '../../src/emulator/app-env.js';

describe('launch-plan', () => {
  it("the node default installs first and reports that install step; a startCommand of the user's own replaces both", () => {
    const node = planFor({ runtime: 'nodejs', entryFile: 'bot.js' });
    expect(node).toMatchObject({ kind: 'process', command: process.execPath, args: ['bot.js'], installs: true });
    expect(node.kind === 'process' && node.reported).toBe('if [ -f package.json ]; then npm install; fi; node bot.js');
    expect(planFor({ runtime: 'nodejs', entryFile: 'bot.js', startCommand: 'node bot.js' })).toMatchObject({ command: '/bin/sh', args: ['-c', 'node bot.js'], installs: false });
  });

  it('static sites are served, unknown runtimes are not emulated, odd entry names are quoted for display', () => {
    expect(planFor({ runtime: 'static', entryFile: '' }).kind).toBe('files');
    expect(planFor({ runtime: 'java', entryFile: 'App.jar' }).kind).toBe('none');
    const py = planFor({ runtime: 'python', entryFile: "it's.py", install: false });
    expect(py.kind === 'process' && py.display).toBe(`python 'it'\\''s.py'`);
  });
});

describe('run-hints', () => {
  const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
    runtime: 'nodejs', emulated: true, port: 3000, installing: null, bootGraceMs: 3000, everStarted: true, stoppedByUser: false,
    startFailure: null, installFailure: null, exit: null, listens: () => false, memoryLimitMB: 256, ...over,
  });

  it('an install killed for memory names the size it had and the size it needs', () => {
    const installFailure = { step: { display: 'npm install', needFor: 'npm install', needMB: 512 }, outcome: { exitCode: 137, outOfMemory: true } } as unknown as RunFacts['installFailure'];
    expect(hintFor('offline', null, facts({ installFailure }))).toMatch(/has 256 MB and npm install needs 512 MB/);
  });

  it('a running process that does not listen is right for a worker; an app up and answering gets no hint', () => {
    expect(hintFor('running', { ok: false, status: 0 } as never, facts())).toMatch(/does not listen on port 3000: right for a bot or worker/);
    expect(hintFor('running', { ok: true, status: 200 } as never, facts())).toBe('');
    expect(hintFor('running', null, facts({ emulated: false, runtime: 'java' }))).toMatch(/runtime java is not emulated/);
  });
});

describe('app-env', () => {
  it("the node's variables win over the user's, HOME is the volume, and nothing else of the emulator's leaks in", () => {
    process.env.HOSTSYNC_API_KEY_TEST_LEAK = 'secret';
    try {
      const env = appEnvOf('/vol', { SERVER_PORT: '1', MODE: 'x' }, { SERVER_PORT: '3000' });
      expect(env).toMatchObject({ SERVER_PORT: '3000', MODE: 'x', HOME: '/vol' });
      expect(env.HOSTSYNC_API_KEY_TEST_LEAK).toBeUndefined();
    } finally {
      delete process.env.HOSTSYNC_API_KEY_TEST_LEAK;
    }
  });
});
