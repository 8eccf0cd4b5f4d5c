import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectProjectKind, KIND_TABLE, pipPackages } from '../../src/config/project-kind.js';

const pkg = (deps: Record<string, string>, field = 'dependencies'): string => JSON.stringify({ name: 'p', [field]: deps });

describe('detectProjectKind', () => {
  it.each([
    [{ packageJson: pkg({ 'discord.js': '^14.0.0' }), requirements: null }, { kind: 'worker', package: 'discord.js', manifest: 'package.json', health: { kind: 'worker', ready: 'Logged in as' } }],
    [{ packageJson: pkg({ telegraf: '^4' }), requirements: null }, { kind: 'worker', package: 'telegraf', health: { kind: 'worker' } }],
    [{ packageJson: pkg({ '@slack/bolt': '^3' }, 'devDependencies'), requirements: null }, { kind: 'worker', package: '@slack/bolt' }],
    [{ packageJson: pkg({ express: '^4' }), requirements: null }, { kind: 'web', package: 'express', health: { kind: 'web', path: '/' } }],
    [{ packageJson: null, requirements: 'Discord.py>=2.3  # the bot\n' }, { kind: 'worker', package: 'Discord.py', manifest: 'requirements.txt', health: { kind: 'worker' } }],
    [{ packageJson: null, requirements: 'python_telegram_bot==20.0\n' }, { kind: 'worker', package: 'python_telegram_bot' }],
    [{ packageJson: null, requirements: '-r base.txt\n--index-url https://x\nFlask[async]==3.0\n' }, { kind: 'web', package: 'Flask' }],
    // A bot with a keep-alive web server is judged by its bot.
    [{ packageJson: pkg({ express: '^4', 'discord.js': '^14' }), requirements: null }, { kind: 'worker', package: 'discord.js' }],
  ])('%j -> %j', (manifests, want) => {
    expect(detectProjectKind(manifests)).toMatchObject(want);
  });

  it('finds nothing in an unknown stack, an empty project or an unreadable package.json', () => {
    expect(detectProjectKind({ packageJson: pkg({ lodash: '^4' }), requirements: 'requests\n' })).toBeNull();
    expect(detectProjectKind({ packageJson: null, requirements: null })).toBeNull();
    expect(detectProjectKind({ packageJson: '{"dependencies": ', requirements: null })).toBeNull();
  });

  it('reads requirement names, not versions, markers, comments or options', () => {
    expect(pipPackages('# c\nflask==3 ; python_version>"3"\n  django~=5\n-e .\nhttps://x/y.whl\nrequests[socks]\n')).toEqual(['flask', 'django', 'requests']);
  });

  it("every package of the tables is in docs/health.md's table", () => {
    const page = readFileSync('docs/health.md', 'utf8');
    const section = page.slice(page.indexOf('## Which kind `init` picks'));
    for (const names of [KIND_TABLE.npm.worker, KIND_TABLE.npm.web, KIND_TABLE.pip.worker, KIND_TABLE.pip.web]) {
      for (const name of names) expect(section.split('\n## ')[0]).toContain(`\`${name}\``);
    }
  });
});
