import { request } from 'node:http';
import { connect } from 'node:net';
import type { HttpProbe } from '../api/types.js';
import { EMULATOR_BODY_EXCERPT_CHARS, EMULATOR_PROBE_MAX_BODY_BYTES } from './tunables.js';

/** True when something accepts a TCP connection on 127.0.0.1:port within `timeoutMs`. */
export function canConnect(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** The text of an HTML page's first <title>, entities decoded and whitespace collapsed; "" if there is none. */
export function extractTitle(html: string): string {
  const match = /<title[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  return match?.[1] === undefined ? '' : decodeEntities(match[1]).replace(/\s+/g, ' ').trim();
}

/** Bodies worth quoting in an excerpt; anything else (images, archives) gets "". */
function isTextual(contentType: string): boolean {
  return contentType === '' || /^text\/|json|xml|javascript|ecmascript|x-www-form-urlencoded/i.test(contentType);
}

/** What a probe reports when nothing answered (connection refused, reset, timeout). */
export function failedProbe(url: string): HttpProbe {
  return { url, status: 0, ok: false, contentType: '', title: '', bodyExcerpt: '' };
}

/**
 * GET http://127.0.0.1:<port>/ like a visitor's first request: no redirects followed,
 * at most EMULATOR_PROBE_MAX_BODY_BYTES read, given up after `timeoutMs` (status 0).
 * Never rejects. `ok` is 2xx or 3xx: a redirect is an app that answers.
 */
export function probeHttp(port: number, timeoutMs: number): Promise<HttpProbe> {
  const url = `http://127.0.0.1:${port}/`;
  return new Promise((resolve) => {
    let settled = false;
    /** Set once headers arrive: a body that stalls past the timeout still reports the status. */
    let reportPartial: (() => void) | null = null;
    const finish = (probe: HttpProbe): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(probe);
    };
    const req = request(url, { method: 'GET', agent: false, headers: { 'user-agent': 'hostsync-emulator-probe', accept: '*/*' } }, (res) => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      const chunks: Buffer[] = [];
      let bytes = 0;
      const report = (): void => {
        const body = Buffer.concat(chunks).toString('utf8');
        const textual = isTextual(contentType);
        finish({
          url,
          status,
          ok: status >= 200 && status < 400,
          contentType,
          title: /html/i.test(contentType) || contentType === '' ? extractTitle(body) : '',
          bodyExcerpt: textual ? body.slice(0, EMULATOR_BODY_EXCERPT_CHARS) : '',
        });
      };
      reportPartial = report;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= EMULATOR_PROBE_MAX_BODY_BYTES) report();
      });
      res.once('end', report);
      // The app answered with a status; a body cut short still tells what it is.
      res.once('error', report);
      res.once('aborted', report);
    });
    const timer = setTimeout(() => (reportPartial ? reportPartial() : finish(failedProbe(url))), timeoutMs);
    req.once('error', () => finish(failedProbe(url)));
    req.end();
  });
}
