import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allocatePort, isPortFree } from '../../src/emulator/ports.js';
import { canConnect, extractTitle, probeHttp } from '../../src/emulator/probe.js';

let server: Server;
let port: number;
let mode = 'page';

beforeAll(async () => {
  server = createServer((req, res) => {
    switch (mode) {
      case 'redirect':
        res.writeHead(302, { location: '/elsewhere' }).end('<title>Redirecting</title>');
        return;
      case 'error':
        res.writeHead(500, { 'content-type': 'text/html' }).end('<title>Oops</title>');
        return;
      case 'json':
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ title: 'not html', pad: 'y'.repeat(1000) }));
        return;
      case 'stall':
        // Headers and the page head, then nothing: the probe must still report what it got.
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head><title>Slow</title>');
        return;
      default:
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><head><TITLE>\n  Caf&eacute; &amp; Bar &#8212; &#x41;  </TITLE></head><body>x</body></html>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('probeHttp', () => {
  it('reads status, content type, title and excerpt of a page', async () => {
    mode = 'page';
    const probe = await probeHttp(port, 3000);
    expect(probe).toMatchObject({ url: `http://127.0.0.1:${port}/`, status: 200, ok: true, contentType: 'text/html; charset=utf-8' });
    // Unknown named entities stay as they are; numeric ones and the XML five are decoded.
    expect(probe.title).toBe('Caf&eacute; & Bar — A');
    expect(probe.bodyExcerpt.startsWith('<html><head><TITLE>')).toBe(true);
  });

  it('does not follow redirects and counts 3xx as ok', async () => {
    mode = 'redirect';
    expect(await probeHttp(port, 3000)).toMatchObject({ status: 302, ok: true });
  });

  it('counts 5xx as not ok', async () => {
    mode = 'error';
    expect(await probeHttp(port, 3000)).toMatchObject({ status: 500, ok: false, title: 'Oops' });
  });

  it('gives no title for non-HTML and cuts the excerpt', async () => {
    mode = 'json';
    const probe = await probeHttp(port, 3000);
    expect(probe.title).toBe('');
    expect(probe.bodyExcerpt).toHaveLength(300);
  });

  it('reports the status of a body that stalls past the timeout', async () => {
    mode = 'stall';
    expect(await probeHttp(port, 1500)).toMatchObject({ status: 200, ok: true, title: 'Slow' });
  });

  it('reports status 0 when nothing listens', async () => {
    const free = await allocatePort();
    expect(await probeHttp(free, 3000)).toMatchObject({ status: 0, ok: false, contentType: '', title: '', bodyExcerpt: '' });
    expect(await canConnect(free, 1000)).toBe(false);
  });
});

describe('ports', () => {
  it('sees a port held by a listener as taken, and a released one as free', async () => {
    expect(await isPortFree(port)).toBe(false);
    const free = await allocatePort();
    expect(await isPortFree(free)).toBe(true);
  });
});

describe('extractTitle', () => {
  it('returns "" without a title', () => {
    expect(extractTitle('<html><body>no title</body></html>')).toBe('');
    expect(extractTitle('<title></title>')).toBe('');
  });
});
