import { describe, expect, it } from 'vitest';
import type { EnvVariable } from '../../src/api/types.js';
import { planEnv } from '../../src/sync/settings/env-plan.js';

const v = (key: string, value: string, secret = false, system = false): EnvVariable => ({ key, value: secret ? '********' : value, secret, system });
const plan = (local: Record<string, string>, remote: EnvVariable[], o: { plain?: string[]; secret?: string[]; remembered?: Record<string, string> } = {}) =>
  planEnv({
    local: new Map(Object.entries(local)),
    remote,
    plain: new Set(o.plain ?? []),
    secret: new Set(o.secret ?? []),
    secretMatches: (k, val) => (o.remembered && k in o.remembered ? o.remembered[k] === val : null),
  });

describe('planEnv', () => {
  it.each([
    ['a new key is added as a secret', { A: '1' }, [], {}, [{ key: 'A', change: 'added', secret: true }], []],
    ['a new key named by --plain is added plain', { A: '1' }, [], { plain: ['A'] }, [{ key: 'A', change: 'added', secret: false }], []],
    ['an equal plain value is no change', { A: '1' }, [v('A', '1')], {}, [], []],
    ['a different plain value is changed, and stays plain', { A: '2' }, [v('A', '1')], {}, [{ key: 'A', change: 'changed', secret: false }], []],
    ['a secret hostsync set with this value is no change', { S: 'x' }, [v('S', 'x', true)], { remembered: { S: 'x' } }, [], []],
    ['a secret hostsync set with another value is changed', { S: 'y' }, [v('S', 'x', true)], { remembered: { S: 'x' } }, [{ key: 'S', change: 'changed', secret: true }], []],
    ['a secret hostsync did not set cannot be compared: unverified, not a change', { S: 'y' }, [v('S', 'x', true)], {}, [], ['S']],
    ['--secret turns a plain variable secret', { A: '1' }, [v('A', '1')], { secret: ['A'] }, [{ key: 'A', change: 'changed', secret: true }], []],
    ['--plain turns a secret plain', { S: 'x' }, [v('S', 'x', true)], { plain: ['S'], remembered: { S: 'x' } }, [{ key: 'S', change: 'changed', secret: false }], []],
    ['a remote key the file lacks is removed', {}, [v('OLD', '1', true)], {}, [{ key: 'OLD', change: 'removed', secret: true }], []],
    ['system variables are never compared or removed', {}, [v('SERVER_PORT', '8080', false, true)], {}, [], []],
  ] as const)('%s', (_name, local, remote, o, changes, unverified) => {
    const p = plan(local, [...remote], o as never);
    expect(p.changes).toEqual(changes);
    expect(p.unverified).toEqual(unverified);
  });

  it('a file key that is a system variable (PORT) is neither added nor sent: listed as system (issue 28, item 16)', () => {
    const p = plan({ PORT: '3000', A: '1' }, [v('PORT', '8080', false, true), v('SERVER_PORT', '8080', false, true)]);
    expect(p.changes).toEqual([{ key: 'A', change: 'added', secret: true }]);
    expect(p.system).toEqual(['PORT']);
  });

  it('sorts the changes by key and carries no value', () => {
    const p = plan({ B: 'secret-b', A: 'secret-a' }, [v('C', 'plain-c')]);
    expect(p.changes.map((c) => c.key)).toEqual(['A', 'B', 'C']);
    expect(JSON.stringify(p)).not.toMatch(/secret-a|secret-b|plain-c/);
  });
});
