/**
 * A reader that goes away (`hostsync --help | head -c 10`) must not crash the CLI with an
 * unhandled EPIPE: the output is dropped and the command ends with its own exit code.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/cli.js';

describe('stdout closed by its reader', () => {
  it('ends with the command\'s own exit code and no stack trace', async () => {
    // `true` exits at once, long before node has started, so the help text meets a closed
    // pipe; pipefail makes the pipeline's status node's own.
    const child = spawn('bash', ['-o', 'pipefail', '-c', '"$0" "$1" --help | true', process.execPath, CLI], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
