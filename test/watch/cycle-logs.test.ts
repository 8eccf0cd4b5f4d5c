/** A failed cycle's log lines start at the failure's first error line, as push shows it (#29), not mid-stack at `Require stack:`. */
import { describe, expect, it } from 'vitest';
import { watchEvent } from '../../src/app/watch.js';
import type { CycleEvent } from '../../src/watch/daemon.js';

describe('watch cycle logs', () => {
  it('lead with the first error line when the tail has lost it', () => {
    const logs = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      "Error: Cannot find module 'lodash'",
      'Require stack:',
      ...Array.from({ length: 30 }, (_, i) => `    at frame${i} (node:internal/x:${i})`),
      'Node.js v20.20.2',
    ];
    const e = {
      type: 'cycle', time: new Date(), trigger: 'change', changes: [], counts: { written: 1, deleted: 0, moved: 0, chmod: 0 }, requests: 3, byOperation: {},
      rateLimited: 0, apply: { state: 'offline', logs, hint: 'install lodash', http: { url: '', status: 0, ok: false } }, healthy: false,
      conflicts: [], drift: [], failures: [], warnings: [], ms: 10, cycleMs: 10, quiet: false,
    } as unknown as CycleEvent;
    const out = watchEvent(e) as { logs: string[] };
    expect(out.logs[0]).toBe("Error: Cannot find module 'lodash'");
    expect(out.logs.at(-1)).toBe('Node.js v20.20.2');
  });
});
