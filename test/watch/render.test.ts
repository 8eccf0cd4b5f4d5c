import { describe, expect, it } from 'vitest';
import type { ApplyResult } from '../../src/api/types.js';
import type { CycleEvent } from '../../src/watch/daemon.js';
import { renderCycle, renderWatchEvent, watchEventJson } from '../../src/cli/watch-render.js';

process.env.NO_COLOR = '1';

const entry = (path: string) => ({ path, hash: '0123456789abcdef', size: 3, executable: false });
const cycle = (over: Partial<CycleEvent>): CycleEvent => ({
  type: 'cycle',
  time: new Date(2026, 0, 1, 12, 3, 4),
  trigger: 'change',
  changes: [],
  counts: { written: 0, deleted: 0, moved: 0, chmod: 0 },
  requests: 1,
  byOperation: { 'files.index': 1 },
  rateLimited: 0,
  apply: null,
  healthy: null,
  conflicts: [],
  drift: [],
  failures: [],
  warnings: [],
  ms: null,
  cycleMs: 5,
  quiet: false,
  ...over,
});
const apply = (over: Partial<ApplyResult>): ApplyResult =>
  ({
    state: 'running',
    installing: false,
    resources: { ramMB: 10, ramLimitMB: 512, cpuPercent: 1 },
    logs: [],
    startup: { runtime: 'nodejs', runtimeVersion: '20', entryFile: 'index.js', startCommand: 'node index.js' },
    http: { url: 'http://127.0.0.1:1234/', status: 200, ok: true, contentType: 'text/html', title: 'ok', bodyExcerpt: '' },
    direct: { url: '', status: 200, ok: true },
    hint: '',
    restarted: true,
    skippedRestart: '',
    ...over,
  }) as ApplyResult;

describe('renderCycle', () => {
  it('one line: time, what changed, requests, state and HTTP status, save-to-live ms', () => {
    const e = cycle({
      changes: [{ kind: 'write', path: 'src/app.js', entry: entry('src/app.js'), create: false }],
      counts: { written: 1, deleted: 0, moved: 0, chmod: 0 },
      requests: 4,
      apply: apply({}),
      healthy: true,
      ms: 142,
    });
    const lines = renderCycle(e, false);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}M src\/app\.js {2}· {2}4 req {2}· {2}running HTTP 200 {2}· {2}142 ms$/);
  });

  it('a worker shows its state and kind, never an HTTP status it does not serve', () => {
    const health = { healthy: true, kind: 'worker' as const, decided: 'config' as const, reason: 'ready line seen', readyLine: 'Logged in as Bot', state: 'running' as const, requests: 1, waitedMs: 300, logs: [] };
    const noAnswer = { url: 'http://127.0.0.1:1234/', status: 0, ok: false, contentType: '', title: '', bodyExcerpt: '' };
    const e = cycle({ apply: apply({ http: noAnswer }), health, healthy: true, ms: 80 });
    expect(renderCycle(e, false)[0]).toMatch(/· {2}running worker {2}· {2}80 ms$/);
    expect(watchEventJson(e)).toMatchObject({ state: 'running', http: null, kind: 'worker', healthy: true });
    // A web app keeps its status, and says what it was judged as.
    expect(watchEventJson(cycle({ apply: apply({}), health: { ...health, kind: 'web', readyLine: null }, healthy: true }))).toMatchObject({ http: 200, kind: 'web' });
  });

  it('names three changes, then counts the rest', () => {
    const changes = ['a', 'b', 'c', 'd', 'e'].map((p) => ({ kind: 'write' as const, path: p, entry: entry(p), create: true }));
    expect(renderCycle(cycle({ changes }), false)[0]).toContain('A a, A b, A c, +2 more');
  });

  it('lists conflicts and drift under the line, and the log tail when the app crashed', () => {
    const e = cycle({
      conflicts: [{ path: 'x.js', reason: 'both-modified', local: null, remote: null, base: null }],
      drift: [{ path: 'uploads/y.png', kind: 'modified', remote: null, base: null }],
      apply: apply({ state: 'offline', logs: ['line 1', 'Error: boom'], hint: 'fix the error', http: { url: 'http://h/', status: 0, ok: false, contentType: '', title: '', bodyExcerpt: '' } }),
      healthy: false,
    });
    const text = renderCycle(e, false).join('\n');
    expect(text).toContain('nothing pushed');
    expect(text).toContain('C x.js');
    expect(text).toContain('M uploads/y.png');
    expect(text).toContain('offline no answer');
    expect(text).toContain('last log lines');
    expect(text).toContain('Error: boom');
    expect(text).toContain('hint: fix the error');
  });

  it('says when a change was not applied because of --no-apply', () => {
    const e = cycle({ changes: [{ kind: 'delete', path: 'old.js', base: entry('old.js') }] });
    expect(renderCycle(e, true)[0]).toContain('D old.js');
    expect(renderCycle(e, true)[0]).toContain('not applied (--no-apply)');
  });
});

describe('renderWatchEvent and watchEventJson', () => {
  const ctx = { target: 'deployment d1 (127.0.0.1:1)', root: '/p', noApply: false };

  it('a quiet cycle prints nothing for humans, but one JSON line for machines', () => {
    const e = cycle({ trigger: 'poll', quiet: true });
    expect(renderWatchEvent(e, ctx)).toEqual([]);
    expect(watchEventJson(e)).toMatchObject({ type: 'cycle', trigger: 'poll', requests: 1, state: null, http: null, healthy: null });
  });

  it('tells the user it waits for the service, and when it is back', () => {
    expect(renderWatchEvent({ type: 'waiting', message: 'files.index: connection refused', retryInMs: 4000, pending: 2 }, ctx)[0]).toMatch(
      /waiting for the service \(files\.index: connection refused\); retrying in 4 s$/,
    );
    expect(renderWatchEvent({ type: 'recovered', afterMs: 12_300 }, ctx)[0]).toMatch(/back after 12\.3 s; catching up$/);
  });

  it('JSON cycle lines carry the documented fields', () => {
    const e = cycle({
      changes: [{ kind: 'rename', from: 'a.js', to: 'b.js', entry: entry('b.js') }],
      counts: { written: 0, deleted: 0, moved: 1, chmod: 0 },
      apply: apply({}),
      healthy: true,
      ms: 99,
    });
    const j = watchEventJson(e);
    expect(j).toMatchObject({ type: 'cycle', changes: { moved: 1 }, paths: ['a.js', 'b.js'], state: 'running', http: 200, healthy: true, ms: 99, conflicts: [] });
    expect(JSON.parse(JSON.stringify(j))).toEqual(j);
  });
});
