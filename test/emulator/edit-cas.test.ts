/**
 * files.edit is an exact-match compare-and-swap: of several edits racing with the same
 * oldString, exactly one lands and the others are refused (the base record's tail relies on
 * it, sync/record/remote-record.ts). Before the emulator ran one edit of a file at a time, two
 * racing requests both matched the old text and the later write won silently.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestEmulator, type TestEmulator } from './api-client.js';

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(() => t.close());

describe('files.edit under a race', () => {
  it.each([2, 5])('%i edits of the same tail at once: one lands, the rest are refused', async (n) => {
    const file = `cas-${n}.txt`;
    writeFileSync(path.join(t.emu.volume, file), 'batch 0\n@tail t0\n');
    const edits = Array.from({ length: n }, (_, i) =>
      call(t.emu, 'POST', '~/files/edit', { body: { path: file, oldString: '@tail t0\n', newString: `batch ${i + 1}\n@tail t${i + 1}\n` } }),
    );
    const answers = await Promise.all(edits);
    const landed = answers.filter((a) => a.status === 200);
    expect(landed).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(n - 1);
    const text = readFileSync(path.join(t.emu.volume, file), 'utf8');
    expect(text.match(/^batch /gm)).toHaveLength(2);
  });
});
