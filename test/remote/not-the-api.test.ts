/**
 * Answers that are not the API's (issue #30): a CDN's HTML challenge page, a body that
 * is not JSON, a JSON error in either shape, a 401/403 without the API's rate header.
 * Each is one line naming what came back; the foreign ones have their own exit code.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, NOT_THE_API } from '../../src/remote/errors.js';
import { describeError } from '../../src/sync/describe-error.js';
import { EXIT } from '../../src/errors.js';
import { clientHarness } from './client-harness.js';

const { setup } = clientHarness('close');

const CHALLENGE = '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><h1>Checking your browser</h1></body></html>';

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('answers that are not the API', () => {
  it('an HTML 403 challenge page: one line naming a web page, exit 5, not a key or scope error, not retried', async () => {
    const { client, service } = await setup(() => ({ status: 403, text: CHALLENGE, headers: { 'content-type': 'text/html; charset=UTF-8' } }));
    const err = await failure(client.deployments.get());
    expect(err.message).toBe('deployments.get: the address answered a web page, not the API (HTTP 403, "Just a moment..."): a proxy or challenge in front of it, or a wrong --base-url');
    expect(err.code).toBe(NOT_THE_API);
    expect(err.message).not.toMatch(/scope|JSON|Unexpected token/);
    expect(describeError(err)).toEqual({ message: err.message, exitCode: EXIT.notApi });
    expect(service.seen).toHaveLength(1);
  });

  it('a body that is not JSON names its type and a quote of it', async () => {
    const { client } = await setup(() => ({ status: 400, text: 'Bad gateway config: upstream not found', headers: { 'content-type': 'text/plain' } }));
    const err = await failure(client.deployments.get());
    expect(err.message).toBe('deployments.get: the address answered text/plain that is not JSON, not the API (HTTP 400: "Bad gateway config: upstream not found"): a proxy in front of it, or a wrong --base-url');
    expect(describeError(err).exitCode).toBe(EXIT.notApi);
  });

  it('a proxy\'s HTML 502 stays a retried server failure, not "not the API"', async () => {
    let n = 0;
    const { client } = await setup(() => (++n === 1 ? { status: 502, text: '<html><title>502 Bad Gateway</title></html>', headers: { 'content-type': 'text/html' } } : { json: { id: 'dep-1', name: 'app', state: 'running' } }));
    await expect(client.deployments.get()).resolves.toMatchObject({ id: 'dep-1' });
  });

  it('JSON errors in either shape are read: {"error": "..."} and {"error": {"message": ...}}, also message and errors[0].detail', async () => {
    const shapes = [
      { error: 'no such file: a.txt' },
      { error: { message: 'no such file: a.txt', code: 'not_found' } },
      { message: 'no such file: a.txt' },
      { errors: [{ detail: 'no such file: a.txt' }] },
    ];
    for (const body of shapes) {
      const { client } = await setup(() => ({ status: 409, json: body, headers: { 'x-ratelimit-remaining': '100' } }));
      const err = await failure(client.files.read('a.txt'));
      expect(err.message, JSON.stringify(body)).toBe('files.read: request refused (409). Server said: "no such file: a.txt".');
      expect(err.code === undefined || err.code === 'not_found').toBe(true);
    }
  });

  it('a 401 or 403 without X-RateLimit-Remaining says the refusal may come from something in front of the API', async () => {
    for (const status of [401, 403]) {
      const { client } = await setup(() => ({ status, json: { error: 'denied' } }));
      const err = await failure(client.deployments.get());
      expect(err.message).toMatch(/X-RateLimit-Remaining, which every answer of the API carries: if the key is right, something in front of the API \(a proxy, a firewall\) refused the request\.$/);
      expect(err.message).not.toContain('\n');
    }
    // The API's own 401, with its header, says nothing of the kind.
    const { client } = await setup(() => ({ status: 401, json: { error: 'unknown API key' }, headers: { 'x-ratelimit-remaining': '120' } }));
    expect((await failure(client.deployments.get())).message).not.toContain('X-RateLimit-Remaining');
  });
});
