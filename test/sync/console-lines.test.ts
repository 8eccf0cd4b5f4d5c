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
