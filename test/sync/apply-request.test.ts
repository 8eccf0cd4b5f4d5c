import { describe, expect, it } from 'vitest';
import { createIgnoreMatcher } from '../../src/local/ignore.js';
import { applyRequestFor } from '../../src/sync/apply/apply.js';
import { DEFAULT_HOT_PATHS } from '../../src/sync/tunables.js';

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

describe('the default hot paths', () => {
  const defaults = createIgnoreMatcher([...DEFAULT_HOT_PATHS]);
  it.each([
    ['docs and licences only: no restart', ['README.md', 'docs/setup/index.html', 'LICENSE', 'sub/notes.md', 'hostsync.json', '.syncignore'], { restart: false }],
    ['code that merely looks like a readme: the runtime decides', ['src/readme.js'], {}],
    ['a readme and code: the runtime decides', ['README.md', 'index.js'], {}],
  ] as const)('%s', (_name, paths, expected) => {
    expect(applyRequestFor('auto', defaults, paths, undefined)).toEqual(expected);
  });
});
