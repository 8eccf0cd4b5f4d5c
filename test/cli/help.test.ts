import { describe, expect, it } from 'vitest';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { runCli } from '../helpers/cli.js';

const program = buildProgram(() => undefined);
/** Every registered command, so a command added later is covered without touching this test. */
const commands = program.commands.filter((c) => c.name() !== 'help');
const flagsOf = (c: Command): string[] => c.options.map((o: Option) => o.long ?? o.short ?? o.flags);
const globalFlags = flagsOf(program).filter((f) => f !== '--version');

describe('help', () => {
  it('covers some commands', () => {
    expect(commands.map((c) => c.name())).toEqual(expect.arrayContaining(['push', 'status', 'watch', 'init', 'emulator']));
  });

  it.each(commands.map((c) => [c.name(), c] as const))('`%s --help` exits 0 and names its own flags and the global ones', async (name, cmd) => {
    const r = await runCli([name, '--help'], {});
    expect(r.code).toBe(0);
    for (const flag of [...flagsOf(cmd), ...globalFlags]) expect(r.stdout, `${name} --help names ${flag}`).toContain(flag);
    expect(r.stdout).toContain('Global Options:');
  });

  it('`hostsync --help` ends with the exit codes and the README and the docs pages', async () => {
    const r = await runCli(['--help'], {});
    expect(r.code).toBe(0);
    const tail = r.stdout.slice(r.stdout.indexOf('Exit codes:'));
    for (const code of ['0', '1', '2', '3', '4', '5']) expect(tail).toMatch(new RegExp(`^  ${code}  \\S`, 'm'));
    expect(tail).toMatch(/README\.md/);
    expect(tail).toMatch(/docs\/[\s\S]*commands\.md/);
  });

  it('`hostsync --help` lists exactly the registered commands (nothing it cannot run)', async () => {
    const r = await runCli(['--help'], {});
    const listed = [...r.stdout.slice(r.stdout.indexOf('Commands:'), r.stdout.indexOf('Exit codes:')).matchAll(/^  (\w[\w-]*)/gm)].map((m) => m[1]!);
    expect(listed.sort()).toEqual([...commands.map((c) => c.name()), 'help'].sort());
  });

  it('`watch --help` mentions --json output', async () => {
    const r = await runCli(['watch', '--help'], {});
    expect(r.stdout).toMatch(/with --json, one JSON object per line/);
  });

  it('an unknown command exits 2 and suggests the closest one', async () => {
    const [r, pul] = await Promise.all([runCli(['stauts'], {}), runCli(['pul'], {})]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Did you mean status\?/);
    // Now that pull exists, "pul" is pull, not push.
    expect(pul.code).toBe(2);
    expect(pul.stderr).toMatch(/Did you mean pull\?/);
  });
});
