/**
 * Issue 46, item 4: the release workflow is ready for the first publish: a version tag runs
 * the tests, then `npm publish --provenance` with the OIDC permission provenance needs.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseYaml, type Yaml } from '../helpers/actions.js';

const REPO = path.resolve(import.meta.dirname, '../..');

describe('.github/workflows/release.yml', () => {
  it('publishes with provenance on a version tag, after the tests, and never on the action`s moving major tag', async () => {
    const wf = parseYaml(await readFile(path.join(REPO, '.github/workflows/release.yml'), 'utf8')) as {
      on: { push: { tags: string[] } };
      permissions: Record<string, string>;
      jobs: Record<string, { steps: Array<Record<string, Yaml>> }>;
    };
    expect(wf.on.push.tags).toEqual(['v*.*.*']);
    expect(wf.permissions['id-token']).toBe('write');
    const runs = Object.values(wf.jobs)[0]!.steps.map((s) => (typeof s.run === 'string' ? s.run.trim() : ''));
    const test = runs.indexOf('npm test');
    const publish = runs.findIndex((r) => r.startsWith('npm publish') && r.includes('--provenance'));
    expect(test).toBeGreaterThan(-1);
    expect(publish).toBeGreaterThan(test);
    expect(runs.indexOf('npm ci')).toBeLessThan(test);
  });
});
