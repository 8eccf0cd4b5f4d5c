import { describe, expect, it } from 'vitest';
import { readyAfterLastStart, startOrReadyPattern } from '../../src/sync/console-lines.js';

describe('a ready line found by search, after the last start', () => {
  const ready = /Logged in as/;
  it('counts only ready lines after the last start marker', () => {
    const lines = ['[emulator] starting: node index.js (SERVER_PORT=1)', 'Logged in as Old#1', '[emulator] starting: node index.js (SERVER_PORT=1)', 'Logged in as New#2'];
    expect(readyAfterLastStart(lines, ready)).toBe('Logged in as New#2');
    expect(readyAfterLastStart(lines.slice(0, 3), ready)).toBeNull();
  });
  it('with no marker among the matches, the start lies before them all: any ready line counts', () => {
    expect(readyAfterLastStart(['Logged in as Bot#1'], ready)).toBe('Logged in as Bot#1');
  });
  it('the search pattern finds both the markers (emulator and Wings) and the ready lines', () => {
    const re = new RegExp(startOrReadyPattern('Logged in|ready!'), 'i');
    for (const l of ['[emulator] starting: python app.py (SERVER_PORT=2)', 'container@pterodactyl~ Server marked as starting...', 'Logged in as X', 'bot ready!']) expect(re.test(l), l).toBe(true);
    expect(re.test('guild 12')).toBe(false);
  });
});

describe('out of memory, named with its fix', () => {
  it('an offline start whose lines say "Out of memory: true" is unhealthy for that reason, with the fix in the same line', async () => {
    const { judgeHealth } = await import('../../src/sync/apply/health.js');
    const { undersizedInstall } = await import('../../src/sync/apply/memory-advice.js');
    const settings = { kind: 'auto', path: '/', ready: null, timeoutSeconds: 30 } as const;
    const logs = ['[emulator] starting: node index.js (SERVER_PORT=1)', '[emulator] npm install exited with code 137', '[emulator] Out of memory: true (the deployment has 256 MB; npm install of a next build needs 1024 MB or more)'];
    const v = judgeHealth({ state: 'offline', http: null, logs, started: true }, settings);
    expect(v).toMatchObject({ status: 'unhealthy', reason: 'the install was killed for want of memory (exit 137, "Out of memory: true"): resize the deployment to at least 1024 MB ("size": {"ramMB": 1024} in hostsync.json, or deployments.resize)' });
    // Wings' own line names no figure: the document's.
    const wings = judgeHealth({ state: 'offline', http: null, logs: ['[Pterodactyl Daemon]: Out of memory: true'], started: true }, settings);
    expect(wings.reason).toMatch(/at least 512 MB .*\(1024 MB for a Svelte\/Next build\)$/);
    expect(undersizedInstall('{"dependencies":{"express":"^4"}}', 256)).toMatch(/^the deployment has 256 MB RAM and npm install needs 512 MB or more/);
    expect(undersizedInstall('{"dependencies":{"express":"^4"}}', 512)).toBeNull();
    expect(undersizedInstall('{"dependencies":{}}', 256)).toBeNull();
  });
});
