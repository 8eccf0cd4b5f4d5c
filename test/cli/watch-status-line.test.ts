/**
 * Issue 47, item 6: the watch's status line (state, last sync, restarts today when known,
 * budget) stays at the bottom of a terminal: every other line is written above it, and
 * without a terminal nothing of it is written.
 */
import { describe, expect, it } from 'vitest';
import { BottomLine, emptyStatusLine, renderStatusLine } from '../../src/cli/watch-status-line.js';

const stream = (isTTY: boolean) => {
  const chunks: string[] = [];
  return { chunks, isTTY, columns: 100, write: (s: string) => (chunks.push(s), true) };
};
/** What a terminal shows after the chunks: \r\x1b[2K clears the line being written. */
function screen(chunks: string[]): string[] {
  const lines: string[] = [''];
  for (const c of chunks) {
    for (const part of c.split(/(\r\x1b\[2K|\n)/)) {
      if (part === '\r\x1b[2K') lines[lines.length - 1] = '';
      else if (part === '\n') lines.push('');
      else lines[lines.length - 1] += part;
    }
  }
  return lines;
}

describe('the watch status line', () => {
  it('says the state, the last sync, the restarts today when known and the budget', () => {
    const s = { ...emptyStatusLine(), state: 'running', lastSync: new Date(2026, 0, 1, 12, 34, 56), restartsToday: 7, restartLimit: 50, budget: { remaining: 110, limit: 120 } };
    expect(renderStatusLine(s, 200)).toBe('running · last sync 12:34:56 · restarts today 7/50 · budget 110/120');
    expect(renderStatusLine(emptyStatusLine(), 200)).toBe('state unknown · not synced yet');
    expect(renderStatusLine(s, 30).length).toBeLessThanOrEqual(30);
  });

  it('stays the last line of a terminal while other lines scroll above it', () => {
    const out = stream(true);
    const err = stream(true);
    const t = new BottomLine(out, err, true);
    t.update({ state: 'running', budget: { remaining: 100, limit: 120 } });
    t.write('12:00:01  M bot.js · 2 req\n');
    t.update({ state: 'offline' });
    t.write('✘ app offline after it came up\n');
    expect(screen(out.chunks)).toEqual(['12:00:01  M bot.js · 2 req', '✘ app offline after it came up', 'offline · not synced yet · budget 100/120']);
    t.close();
    expect(screen(out.chunks).at(-1)).toBe('');
  });

  it('writes nothing of it without a terminal', () => {
    const out = stream(false);
    const t = new BottomLine(out, stream(false), false);
    t.update({ state: 'running' });
    t.write('a line\n');
    t.close();
    expect(out.chunks).toEqual(['a line\n']);
  });
});
