import { describe, expect, it } from 'vitest';
import { createIgnoreMatcher } from '../../src/local/ignore.js';
import { applyRequestFor, isHealthy } from '../../src/sync/apply.js';

const hot = createIgnoreMatcher(['public/**', '*.css']);

describe('applyRequestFor', () => {
  it.each([
    ['auto, a code change: the runtime decides', 'auto', ['index.js'], {}],
    ['auto, only hot paths: no restart', 'auto', ['public/a.png', 'x.css'], { restart: false }],
    ['auto, hot and code: the runtime decides', 'auto', ['public/a.png', 'index.js'], {}],
    ['auto, nothing changed (a pending apply): the runtime decides', 'auto', [], {}],
    ['always restarts, even for hot paths', 'always', ['x.css'], { restart: true }],
    ['never restarts, even for code', 'never', ['index.js'], { restart: false }],
  ] as const)('%s', (_name, policy, paths, expected) => {
    expect(applyRequestFor(policy, hot, paths, undefined)).toEqual(expected);
  });

  it('without hot paths, auto always lets the runtime decide', () => {
    expect(applyRequestFor('auto', null, ['x.css'], undefined)).toEqual({});
  });

  it('passes the configured wait', () => {
    expect(applyRequestFor('auto', null, ['a'], 30)).toEqual({ waitSeconds: 30 });
  });
});

describe('isHealthy', () => {
  const http = (ok: boolean, url = 'http://x/') => ({ url, status: ok ? 200 : 502, ok, title: '' });
  it.each([
    ['running, URL answers', 'running', http(true), true],
    ['running, URL fails', 'running', http(false), false],
    ['running worker without a URL', 'running', http(false, ''), true],
    ['offline', 'offline', http(true), false],
    ['starting', 'starting', undefined, false],
  ] as const)('%s', (_name, state, h, expected) => {
    expect(isHealthy({ state, http: h } as Parameters<typeof isHealthy>[0])).toBe(expected);
  });
});
