import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { undiciAgent } from '../../src/remote/undici-agent.js';

describe('undiciAgent', () => {
  it("is undici's own Agent, loaded without the package's index (an undici release that moves it falls back, and fails this)", async () => {
    const lean = undiciAgent();
    expect(lean.lean).toBe(true);
    const { Agent } = await import('undici');
    expect(lean.Agent).toBe(Agent);
  });

  it('makes a request with the agent', async () => {
    const server = createServer((req, res) => res.end(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { Agent, request } = undiciAgent();
    const agent = new Agent();
    try {
      const res = await request(agent, { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, path: '/x?y=1', method: 'GET' });
      expect([res.statusCode, await res.body.text()]).toEqual([200, 'GET /x?y=1']);
    } finally {
      await agent.close();
      server.close();
    }
  });
});
