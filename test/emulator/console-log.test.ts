import { describe, expect, it } from 'vitest';
import { ConsoleLog, stripAnsi } from '../../src/emulator/console-log.js';
import { EMULATOR_LOG_MAX_LINE_CHARS } from '../../src/emulator/tunables.js';

describe('ConsoleLog', () => {
  it('splits chunks into lines and keeps each stream\'s partial line apart', () => {
    const log = new ConsoleLog(100);
    log.write('stdout', 'hel');
    log.write('stderr', 'Error: ');
    log.write('stdout', 'lo\nwor');
    log.write('stderr', 'bad\n');
    log.write('stdout', 'ld\r\n');
    expect(log.tail(10)).toEqual(['hello', 'Error: bad', 'world']);
  });

  it('flushes a partial line when its stream ends', () => {
    const log = new ConsoleLog(100);
    log.write('stdout', 'no newline at the end');
    expect(log.tail(10)).toEqual([]);
    log.end('stdout');
    expect(log.tail(10)).toEqual(['no newline at the end']);
  });

  it('strips colour codes and keeps only the last frame of a progress line', () => {
    const log = new ConsoleLog(100);
    log.write('stdout', '\u001b[32mgreen\u001b[0m \u001b]0;title\u0007text\n');
    log.write('stdout', 'progress 10%\rprogress 50%\rprogress 100%\n');
    expect(log.tail(10)).toEqual(['green text', 'progress 100%']);
    expect(stripAnsi('\u001b[1;31mred\u001b[K')).toBe('red');
  });

  it('keeps only the newest lines once full, oldest first', () => {
    const log = new ConsoleLog(5);
    for (let i = 1; i <= 12; i++) log.write('stdout', `line ${i}\n`);
    expect(log.size).toBe(5);
    expect(log.tail(100)).toEqual(['line 8', 'line 9', 'line 10', 'line 11', 'line 12']);
    expect(log.tail(2)).toEqual(['line 11', 'line 12']);
    expect(log.tail(0)).toEqual([]);
  });

  it('splits output that never ends a line, so memory stays bounded', () => {
    const log = new ConsoleLog(100);
    log.write('stdout', 'x'.repeat(EMULATOR_LOG_MAX_LINE_CHARS * 2 + 10));
    const lines = log.tail(10);
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.length === EMULATOR_LOG_MAX_LINE_CHARS)).toBe(true);
    log.end('stdout');
    expect(log.tail(10).at(-1)).toBe('x'.repeat(10));
  });
});
