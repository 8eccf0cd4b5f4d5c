/**
 * Examples that run (issue 31): every shell block of README.md and docs/ that a user would
 * paste is run here against the emulator, in a copy of examples/hello, with `hostsync` (and
 * `npx hostsync`) being this build. A block that cannot run here says why in a marker just
 * above its fence, `<!-- not run: REASON -->`, and the reason is shown as the skipped test's
 * name. And every `hostsync COMMAND ... --flag` the docs mention is a flag that command has.
 *
 * What a reader fills in is filled in as they would: `export HOSTSYNC_API_KEY=...` sets the
 * emulator's key (a block without that line has it in its environment), `https://<service>` is the emulator's address, the deployment is
 * the emulator's (as `link` picks it), and a block that starts with `cd my-app` runs beside a
 * copy of the project so named. Commands that do not
 * end by themselves (watch, dev, logs -f, emulator) are stopped with Ctrl-C after a few
 * seconds, as a reader would, and count as passed when they exit 0 on it.
 */
import { cp, mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { buildProgram } from '../../src/cli/main.js';
import { bash } from '../helpers/actions.js';
import { CLI, TEST_CONFIG_HOME } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

interface Block {
  page: string;
  line: number;
  code: string;
  skip: string | null;
}

function shellBlocks(page: string): Block[] {
  const text = readFileSync(path.join(ROOT, page), 'utf8');
  const out: Block[] = [];
  for (const m of text.matchAll(/(?:<!-- not run: ([^>]*?) -->\n)?```(?:sh|bash|shell|console)\n([\s\S]*?)```/g)) {
    out.push({ page, line: text.slice(0, m.index).split('\n').length + (m[1] === undefined ? 0 : 1), code: m[2]!, skip: m[1] ?? null });
  }
  return out;
}
const blocks = PAGES.flatMap(shellBlocks);

const EXPORT_KEY = /^export HOSTSYNC_API_KEY=\.\.\..*$/m;

/**
 * What the reader types in place of the placeholders. A block that exports the key has it
 * from that line on, not before (issue 46, item 5: guides ran `link` before the export).
 */
function filled(code: string, baseUrl: string, key: string): string {
  return code.replace(new RegExp(EXPORT_KEY.source, 'gm'), `export HOSTSYNC_API_KEY=${key}`).replaceAll('https://<service>', baseUrl);
}

/** `hostsync` on PATH: this build; commands that run until stopped get Ctrl-C after a few seconds. */
const SHIM = `#!/usr/bin/env bash
long=0
case "$1" in watch|dev|emulator) long=1 ;; logs) for a in "$@"; do [ "$a" = -f ] || [ "$a" = --follow ] && long=1; done ;; esac
if [ $long = 1 ]; then timeout -s INT 6 node ${JSON.stringify(CLI)} "$@"; rc=$?; [ $rc = 124 ] && rc=0; exit $rc; fi
exec node ${JSON.stringify(CLI)} "$@"
`;
const NPX = `#!/usr/bin/env bash
[ "$1" = hostsync ] || { echo "npx: only hostsync is available in this test" >&2; exit 127; }
shift; exec hostsync "$@"
`;

describe('shell blocks of the docs', () => {
  let bin: string;
  beforeAll(async () => {
    bin = await mkdtemp(path.join(tmpdir(), 'hostsync-docs-bin-'));
    await writeFile(path.join(bin, 'hostsync'), SHIM);
    await writeFile(path.join(bin, 'npx'), NPX);
    await chmod(path.join(bin, 'hostsync'), 0o755);
    await chmod(path.join(bin, 'npx'), 0o755);
  });
  afterAll(async () => {
    if (bin) await rm(bin, { recursive: true, force: true });
  });

  it('finds the blocks', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  for (const b of blocks) {
    const name = `${b.page}:${b.line}`;
    if (b.skip !== null) {
      it.skip(`${name} (not run: ${b.skip})`, () => undefined);
      continue;
    }
    it(`${name} runs and exits 0`, async () => {
      // Each block has a deployment of its own, as a reader's project would.
      const emu: RunningEmulator = await startEmulator({});
      const work = await mkdtemp(path.join(tmpdir(), 'hostsync-docs-project-'));
      // A block that starts with `cd my-app` is pasted beside the project; any other, in it.
      const into = /^cd ([\w.-]+)\s*(#.*)?$/m.exec(b.code.split('\n')[0] ?? '')?.[1];
      const project = into ? path.join(work, into) : work;
      try {
        await cp(path.join(ROOT, 'examples/hello'), project, { recursive: true });
        const env = {
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          HOME: project,
          NO_COLOR: '1',
          XDG_CONFIG_HOME: TEST_CONFIG_HOME,
          HOSTSYNC_CACHE_DIR: process.env.HOSTSYNC_CACHE_DIR ?? path.join(project, '.cache'),
          ...(EXPORT_KEY.test(b.code) ? {} : { HOSTSYNC_API_KEY: emu.apiKey }),
          HOSTSYNC_BASE_URL: emu.baseUrl,
          // The emulator's one deployment, as `hostsync link` would pick it (blocks that are not the tour start linked).
          HOSTSYNC_DEPLOYMENT: emu.deploymentId,
        };
        const r = await bash(`set -eo pipefail\n${filled(b.code, emu.baseUrl, emu.apiKey)}`, env, into ? work : project);
        expect(r.code, `${name} exited ${r.code}\n--- stdout\n${r.stdout.slice(-2000)}\n--- stderr\n${r.stderr.slice(-2000)}`).toBe(0);
      } finally {
        await emu.close();
        await rm(work, { recursive: true, force: true });
      }
    });
  }
});

describe('flags the docs mention', () => {
  const program = buildProgram(() => undefined);
  const globals = new Set(program.options.map((o) => o.long));
  const flagsOf = (c: Command): Set<string> => new Set([...c.options, ...c.commands.flatMap((s) => s.options)].map((o) => o.long).filter((f): f is string => !!f));
  const byName = new Map(program.commands.map((c) => [c.name(), c] as const));

  it.each(PAGES)('%s names only flags its commands have', (page) => {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    const wrong: string[] = [];
    // `hostsync CMD ...` up to the end of the code span, line or table cell.
    for (const m of text.matchAll(/hostsync ([a-z][a-z-]*)([^`\n|]*)/g)) {
      const cmd = byName.get(m[1]!);
      if (!cmd) continue;
      const own = flagsOf(cmd);
      // The command ends at a comment or at a run of spaces (an output column in a sample).
      for (const f of m[2]!.split(/\s#|\s{2,}/)[0]!.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)) {
        if (!own.has(f[0]) && !globals.has(f[0]) && f[0] !== '--help' && f[0] !== '--version') wrong.push(`hostsync ${m[1]} ${f[0]}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
