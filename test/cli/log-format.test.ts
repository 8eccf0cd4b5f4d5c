import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat, formatLogRecord, prettyDestination } from '../../src/cli/log-format.js';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { envFor } from '../helpers/push.js';
import { tempDir, writeTree } from '../helpers/tree.js';

const plain = createColors(false);

describe('chooseLogFormat', () => {
  it.each([
    [{ json: false, env: {}, stderrIsTTY: true }, 'pretty'],
    [{ json: false, env: {}, stderrIsTTY: false }, 'json'],
    [{ json: true, env: {}, stderrIsTTY: true }, 'json'],
    [{ json: false, env: { HOSTSYNC_LOG_FORMAT: 'json' }, stderrIsTTY: true }, 'json'],
    [{ json: true, env: { HOSTSYNC_LOG_FORMAT: 'pretty' }, stderrIsTTY: false }, 'pretty'],
    [{ json: false, env: { HOSTSYNC_LOG_FORMAT: '' }, stderrIsTTY: false }, 'json'],
  ] as const)('%j -> %s', (opts, want) => {
    expect(chooseLogFormat(opts)).toBe(want);
  });

  it('refuses a format it does not know, naming the fix', () => {
    expect(() => chooseLogFormat({ json: false, env: { HOSTSYNC_LOG_FORMAT: 'xml' }, stderrIsTTY: true })).toThrow(/HOSTSYNC_LOG_FORMAT is "xml": set it to json or pretty/);
  });
});

describe('formatLogRecord', () => {
  it('gives a clock, the level name, the message and the fields, quoting what needs it', () => {
    const time = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();
    const line = formatLogRecord({ level: 20, time, msg: 'request', op: 'files.index', status: 200, note: 'two words', body: { a: 1 } }, plain);
    expect(line).toBe('03:04:05.067 DEBUG request op=files.index status=200 note="two words" body={"a":1}');
    expect(formatLogRecord({ level: 50, msg: 'boom' }, plain)).toBe('ERROR boom');
  });

  it('passes through what is not a JSON record', () => {
    const out: string[] = [];
    prettyDestination((l) => out.push(l), plain).write('not json\n{"level":30,"msg":"hi"}\n');
    expect(out).toEqual(['not json\n', 'INFO hi\n']);
  });
});

describe('diagnostics on stderr', () => {
  it('are JSON lines when piped and human lines when asked, stdout untouched either way', async () => {
    const emu = await startEmulator({});
    const work = await tempDir('hostsync-logfmt-');
    try {
      await writeTree(work.dir, { 'a.txt': 'a\n' });
      const env = envFor(emu);
      // Real processes (not the CLI host): pino writes the process's fd 2 itself.
      const piped = await runCli(['status', '--json', '--log-level', 'debug', '--dir', work.dir], env, { process: true });
      expect(piped.code).toBe(0);
      const records = piped.stderr.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.length).toBeGreaterThan(0);
      expect(records[0]).toMatchObject({ level: 20, msg: 'request' });
      expect(JSON.parse(piped.stdout)).toMatchObject({ ok: true });

      const pretty = await runCli(['status', '--json', '--log-level', 'debug', '--dir', work.dir], { ...env, HOSTSYNC_LOG_FORMAT: 'pretty' }, { process: true });
      expect(pretty.stderr).toMatch(/^\d\d:\d\d:\d\d\.\d{3} DEBUG request .*op=files\.index/m);
      expect(pretty.stderr).not.toContain('{"level"');
      expect(JSON.parse(pretty.stdout)).toMatchObject({ ok: true });
      expect(piped.stderr + pretty.stderr).not.toContain(emu.apiKey);
    } finally {
      await emu.close();
      await work.cleanup();
    }
  });
});
