import { describe, expect, it } from 'vitest';
import { isLiveChange, retryWhileVolumeChanges } from '../../src/emulator/backups.js';

function fsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated`), { code });
}

/** A snapshot that races a change `failures` times, then succeeds; counts its calls. */
function racing(failures: number, code = 'ENOENT'): { run: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    run: async () => {
      calls++;
      if (calls <= failures) throw fsError(code);
      return 'archived';
    },
    calls: () => calls,
  };
}

describe('restore points of a live volume', () => {
  it.each([
    ['ENOENT', true],
    ['ENOTDIR', true],
    ['EOF', true], // tar: a file changed size while read
    ['EACCES', false],
    ['ENOSPC', false],
  ])('%s counts as a change racing the snapshot: %s', (code, live) => {
    expect(isLiveChange(fsError(code))).toBe(live);
  });

  it('takes the snapshot again when a file vanished while it was archived', async () => {
    const s = racing(2);
    await expect(retryWhileVolumeChanges(s.run, 3)).resolves.toBe('archived');
    expect(s.calls()).toBe(3);
  });

  it('gives up after the attempts and passes the race on', async () => {
    const s = racing(5);
    await expect(retryWhileVolumeChanges(s.run, 3)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(s.calls()).toBe(3);
  });

  it('does not retry a real failure', async () => {
    const s = racing(1, 'ENOSPC');
    await expect(retryWhileVolumeChanges(s.run, 3)).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(s.calls()).toBe(1);
  });
});
