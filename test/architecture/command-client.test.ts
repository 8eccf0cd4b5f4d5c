/**
 * Every command's client is made by sync/command-client.ts, so HOSTSYNC_TIMEOUT and
 * HOSTSYNC_DEADLINE reach each one: commands that made their own (open, logs, exec,
 * create) missed the deadline (issue 44, item 8).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** Where a client may be made: the one place, and `hostsync dev`'s client of the emulator it runs itself. */
const ALLOWED = new Set(['sync/command-client.ts', 'cli/commands/dev.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const abs = path.join(dir, d.name);
    return d.isDirectory() ? sources(abs) : d.name.endsWith('.ts') ? [abs] : [];
  });
}

describe('command clients', () => {
  it('only sync/command-client.ts makes a HostingClient for a command', () => {
    const makers = sources(SRC)
      .filter((f) => /new HostingClient\s*\(/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(SRC, f).split(path.sep).join('/'))
      .filter((f) => !ALLOWED.has(f));
    expect(makers).toEqual([]);
  });
});
