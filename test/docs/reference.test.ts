/**
 * docs/commands.md is the reference per command; the CLI's own definitions are the truth.
 * A command or flag added to the CLI and not to the page (or one the page names that the
 * CLI lost) fails here, so the two cannot drift.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';

const page = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');
const program = buildProgram(() => undefined);
const commands = program.commands.filter((c) => c.name() !== 'help');

/** The text of `## hostsync NAME` up to the next heading of the same level. */
function section(name: string): string | undefined {
  const m = page.match(new RegExp(`^## hostsync ${name}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm'));
  return m?.[1];
}
const longFlags = (c: Command): string[] => c.options.map((o) => o.long).filter((f): f is string => f !== undefined && f !== '--version');

describe('docs/commands.md against the CLI', () => {
  it.each(commands.map((c) => [c.name(), c] as const))('`hostsync %s` has a section naming each of its flags', (name, cmd) => {
    const text = section(name);
    expect(text, `docs/commands.md has "## hostsync ${name}"`).toBeDefined();
    for (const flag of longFlags(cmd)) expect(text, `the ${name} section names ${flag}`).toContain(flag);
    for (const sub of cmd.commands) {
      expect(text, `the ${name} section names its subcommand ${sub.name()}`).toContain(sub.name());
      for (const flag of longFlags(sub)) expect(text, `the ${name} section names ${sub.name()} ${flag}`).toContain(flag);
    }
  });

  it('documents every global flag', () => {
    const text = page.slice(page.indexOf('## Global flags'));
    for (const flag of longFlags(program)) expect(text).toContain(flag);
  });

  it('has no section for a command the CLI does not have', () => {
    const names = new Set(commands.map((c) => c.name()));
    const documented = [...page.matchAll(/^## hostsync ([\w-]+)$/gm)].map((m) => m[1]!);
    expect(documented.filter((n) => !names.has(n))).toEqual([]);
  });
});

describe('docs/api.md against the client', () => {
  it('names every endpoint the client calls', async () => {
    const { OPERATIONS } = await import('../../src/remote/operations.js');
    const apiPage = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    // files.upload and files.download are the signed node URLs, described with uploadUrl/downloadUrl.
    const missing = Object.values(OPERATIONS)
      .map((o) => o.name)
      .filter((n) => n !== 'files.upload' && n !== 'files.download' && !apiPage.includes(`\`${n}\``));
    expect(missing).toEqual([]);
  });
});

describe('docs/configuration.md against the keys hostsync.json may hold', () => {
  // Issue 46, item 9: the page listed eight keys a target may set, and four more a section later.
  it('the Targets section names every key a target may set, in one list', async () => {
    const { TARGET_KEYS } = await import('../../src/config/keys.js');
    const config = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const targets = config.slice(config.indexOf('\n## Targets\n')).split(/\n## /)[1]!;
    const list = /A target may set these keys[^:]*:([\s\S]*?);/.exec(targets)?.[1] ?? '';
    const named = [...list.matchAll(/`([a-zA-Z]+)`/g)].map((m) => m[1]);
    expect([...new Set(named)].sort()).toEqual([...TARGET_KEYS].sort());
  });
});
