import { describe, expect, it } from 'vitest';
import { declaredMatchBase, normaliseCommand, planSettings, settingMet, type DeploymentSettings } from '../../src/sync/settings/settings-plan.js';

const remote: DeploymentSettings = {
  runtime: 'nodejs', runtimeVersion: '20.19.1', entryFile: 'index.js', startCommand: 'node index.js', ramMB: 256, cpuPct: 100, storageMB: 5120,
};

describe('planSettings: declared (L), deployment (R), last push (B)', () => {
  const cases: Array<[string, Parameters<typeof planSettings>[0], { changes: string[]; conflicts: string[] }]> = [
    ['nothing declared', { startup: {}, size: {}, remote, base: null, force: false }, { changes: [], conflicts: [] }],
    ['L = R', { startup: { entryFile: 'index.js' }, size: {}, remote, base: null, force: false }, { changes: [], conflicts: [] }],
    ['no base, L != R: a first push sets it', { startup: { entryFile: 'bot.js' }, size: {}, remote, base: null, force: false }, { changes: ['entryFile'], conflicts: [] }],
    ['R = B, L != R: a change', { startup: { entryFile: 'bot.js' }, size: {}, remote, base: { entryFile: 'index.js' }, force: false }, { changes: ['entryFile'], conflicts: [] }],
    ['R != B, L != R: a conflict', { startup: { entryFile: 'bot.js' }, size: {}, remote, base: { entryFile: 'main.js' }, force: false }, { changes: [], conflicts: ['entryFile'] }],
    ['R != B, L != R, force: a change', { startup: { entryFile: 'bot.js' }, size: {}, remote, base: { entryFile: 'main.js' }, force: true }, { changes: ['entryFile'], conflicts: [] }],
    ['R != B, L = R: nothing', { startup: { entryFile: 'index.js' }, size: {}, remote, base: { entryFile: 'main.js' }, force: false }, { changes: [], conflicts: [] }],
    ['a major version is met by its patch', { startup: { runtimeVersion: '20' }, size: {}, remote, base: null, force: false }, { changes: [], conflicts: [] }],
    ['another major is a change', { startup: { runtimeVersion: '22' }, size: {}, remote, base: null, force: false }, { changes: ['runtimeVersion'], conflicts: [] }],
    ['size', { startup: {}, size: { ramMB: 512 }, remote, base: null, force: false }, { changes: ['ramMB'], conflicts: [] }],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => {
      const plan = planSettings(input);
      expect(plan.changes.map((c) => c.key)).toEqual(want.changes);
      expect(plan.conflicts.map((c) => c.key)).toEqual(want.conflicts);
    });
  }

  it('sends only the changed startup keys, and all three sizes to resize (the API requires them)', () => {
    const plan = planSettings({ startup: { entryFile: 'bot.js', runtime: 'nodejs' }, size: { ramMB: 1024 }, remote, base: null, force: false });
    expect(plan.startup).toEqual({ entryFile: 'bot.js' });
    expect(plan.resize).toEqual({ ramMB: 1024, cpuPct: 100, storageMB: 5120 });
    expect(plan.runtimeChange).toBeNull();
  });

  it('flags a runtime change', () => {
    const plan = planSettings({ startup: { runtime: 'static' }, size: {}, remote, base: null, force: false });
    expect(plan.runtimeChange).toEqual({ from: 'nodejs', to: 'static' });
  });

  it('compares start commands as the service runs them', () => {
    expect(normaliseCommand('npm install  &&   exec node bot.js')).toBe('npm install && node bot.js');
    expect(settingMet('startCommand', 'npm install && node bot.js', 'npm install && exec node bot.js')).toBe(true);
    expect(settingMet('startCommand', 'node a.js', 'node b.js')).toBe(false);
  });

  it('the steady state needs every declared key in the base', () => {
    expect(declaredMatchBase({ entryFile: 'bot.js' }, {}, { entryFile: 'bot.js' })).toBe(true);
    expect(declaredMatchBase({ entryFile: 'bot.js' }, { ramMB: 512 }, { entryFile: 'bot.js' })).toBe(false);
    expect(declaredMatchBase({ entryFile: 'bot.js' }, {}, null)).toBe(false);
  });
});

describe('a runtime change', () => {
  it('sends every declared startup key with it (a new runtime brings its own defaults for the rest)', () => {
    const plan = planSettings({ startup: { runtime: 'static', entryFile: 'index.js' }, size: {}, remote, base: null, force: false });
    expect(plan.startup).toEqual({ runtime: 'static', entryFile: 'index.js' });
  });
});
