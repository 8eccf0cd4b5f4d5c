import { describe, expect, it } from 'vitest';
import { DEFAULT_HEALTH, type HealthSettings } from '../../src/config/config.js';
import { judgeHealth, resolveKind, timedOut, type HealthInput } from '../../src/sync/apply/health.js';
import { failureTail, linesOfThisStart, newLines } from '../../src/sync/console-lines.js';

const noAnswer = { url: 'http://127.0.0.1:4000/', status: 0, ok: false };
const answer = (status: number) => ({ url: 'http://127.0.0.1:4000/', status, ok: status >= 200 && status < 400 });
const START = '[emulator] starting: node index.js (SERVER_PORT=4000)';
const input = (over: Partial<HealthInput>): HealthInput => ({ state: 'running', http: noAnswer, logs: [START], started: true, ...over });
const settings = (over: Partial<HealthSettings>): HealthSettings => ({ ...DEFAULT_HEALTH, ...over });

describe('judgeHealth', () => {
  const cases: Array<[string, Partial<HealthInput>, Partial<HealthSettings>, string, string | null, string]> = [
    // name, input, settings, status, kind, reason
    ['auto, no HTTP answer: a worker, up', {}, {}, 'healthy', 'worker', 'running'],
    ['auto, HTTP 200: a web app, up', { http: answer(200) }, {}, 'healthy', 'web', 'HTTP 200 on /'],
    ['auto, a redirect counts as an answer', { http: answer(302) }, {}, 'healthy', 'web', 'HTTP 302 on /'],
    ['auto, HTTP 500: a web app, down', { http: answer(500) }, {}, 'unhealthy', 'web', '/ answered HTTP 500'],
    ['web, no answer yet: wait for it', {}, { kind: 'web' }, 'waiting', 'web', 'no HTTP answer on / yet'],
    ['worker pinned, even if it answers 500', { http: answer(500) }, { kind: 'worker' }, 'healthy', 'worker', 'running'],
    ['offline is down, whatever the kind', { state: 'offline' }, { kind: 'worker' }, 'unhealthy', 'worker', 'the app is not running (offline): it exited, crashed or was stopped'],
    ['unknown is down', { state: 'unknown' }, {}, 'unhealthy', null, "the deployment's node could not be reached (state unknown)"],
    ['starting: wait for the state', { state: 'starting' }, {}, 'waiting', null, 'the app is starting'],
    ['installing: wait for the state', { state: 'installing' }, { kind: 'web' }, 'waiting', 'web', 'the app is installing'],
    ['ready line of this start: up', { logs: ['old', START, 'Logged in as Bot#1'] }, { ready: 'Logged in as' }, 'healthy', 'worker', 'ready line seen'],
    ['ready line only before this start: wait', { logs: ['Logged in as Bot#1', START, 'connecting'] }, { ready: 'Logged in as' }, 'waiting', 'worker', 'waiting for a line matching /Logged in as/'],
    ['ready is a regular expression', { logs: [START, 'Logged in as Bot#0001'] }, { ready: 'Bot#\\d{4}$' }, 'healthy', 'worker', 'ready line seen'],
    ['no restart: the ready line is not awaited again', { logs: ['chatter'], started: false }, { ready: 'Logged in as' }, 'healthy', 'worker', 'running'],
    ['logs payload (no probe), auto: the kind is still open', { http: null }, {}, 'waiting', null, 'the app is running'],
  ];
  it.each(cases)('%s', (_name, i, s, status, kind, reason) => {
    const v = judgeHealth(input(i), settings(s));
    expect(v).toMatchObject({ status, kind, reason });
  });

  it('reports the matching line', () => {
    const v = judgeHealth(input({ logs: [START, 'Logged in as Bot#0001'] }), settings({ ready: 'Logged in' }));
    expect(v).toMatchObject({ readyLine: 'Logged in as Bot#0001' });
  });
});

describe('resolveKind', () => {
  it('keeps a pinned kind and resolves auto from the probe', () => {
    expect(resolveKind('web', null)).toBe('web');
    expect(resolveKind('auto', null)).toBeNull();
    expect(resolveKind('auto', noAnswer)).toBe('worker');
    expect(resolveKind('auto', answer(404))).toBe('web');
  });
});

describe('timedOut', () => {
  it('names the pattern and the timeout for a ready line, the path for a web app, the state otherwise', () => {
    const s = settings({ ready: 'Logged in as', timeoutSeconds: 30, path: '/healthz' });
    expect(timedOut({ status: 'waiting', kind: 'worker', reason: '', need: 'ready' }, s).reason).toBe('no line matching /Logged in as/ appeared in the logs within 30 s (health.ready)');
    expect(timedOut({ status: 'waiting', kind: 'web', reason: '', need: 'http' }, s).reason).toMatch(/^\/healthz gave no HTTP answer within 30 s/);
    expect(timedOut({ status: 'waiting', kind: null, reason: 'the app is starting', need: 'state' }, s)).toMatchObject({ status: 'unhealthy', reason: 'the app is starting still, 30 s after the apply' });
    expect(timedOut({ status: 'healthy', kind: 'web', reason: 'ok' }, s)).toMatchObject({ status: 'healthy' });
  });
});

describe('linesOfThisStart', () => {
  it('starts at the last start marker (the emulator\'s or Wings\'), else takes the whole tail', () => {
    expect(linesOfThisStart(['a', START, 'b', START, 'c'])).toEqual([START, 'c']);
    expect(linesOfThisStart(['a', 'container@pterodactyl~ Server marked as starting...', 'b'])).toEqual(['container@pterodactyl~ Server marked as starting...', 'b']);
    expect(linesOfThisStart(['a', 'b'])).toEqual(['a', 'b']);
  });
});

describe('failureTail', () => {
  const frames = Array.from({ length: 20 }, (_, i) => `    at frame${i} (index.js:${i}:1)`);
  it('puts the first error line of this start before the last lines when it would be cut off, and leaves out earlier starts', () => {
    const lines = ['Error: from the previous start', START, 'booting', "Error: Cannot find module 'express'", ...frames, '[emulator] process exited with code 1'];
    const tail = failureTail(lines, 5);
    expect(tail[0]).toBe("Error: Cannot find module 'express'");
    expect(tail[1]).toBe('... (16 more lines)');
    expect(tail.slice(2)).toEqual(lines.slice(-5));
    expect(tail.join('\n')).not.toContain('previous start');
  });
  it('is the plain tail when the error is inside it or there is none', () => {
    expect(failureTail([START, 'a', 'TypeError: x is not a function', 'b'], 5)).toEqual([START, 'a', 'TypeError: x is not a function', 'b']);
    expect(failureTail([START, 'a', 'b', 'c'], 2)).toEqual(['b', 'c']);
  });
  it('knows Python tracebacks', () => {
    const lines = [START, 'Traceback (most recent call last):', ...frames, 'ModuleNotFoundError: No module named discord'];
    expect(failureTail(lines, 3)[0]).toBe('Traceback (most recent call last):');
  });
});

describe('newLines', () => {
  const cases: Array<[string, string[], string[], string[]]> = [
    ['nothing seen yet', [], ['a', 'b'], ['a', 'b']],
    ['window moved by two', ['a', 'b', 'c'], ['b', 'c', 'd', 'e'], ['d', 'e']],
    ['nothing new', ['a', 'b'], ['a', 'b'], []],
    ['a longer tail than the one seen', ['c', 'd'], ['a', 'b', 'c', 'd', 'e'], ['e']],
    ['no overlap: all new', ['x', 'y'], ['a', 'b'], ['a', 'b']],
    ['the longest overlap wins over a repeated line', ['a', 'tick', 'b', 'tick'], ['b', 'tick', 'c', 'tick'], ['c', 'tick']],
  ];
  it.each(cases)('%s', (_n, seen, next, expected) => {
    expect(newLines(seen, next)).toEqual(expected);
  });
});
