import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.wasm': 'application/wasm',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  // phpweb is served without a PHP interpreter: the source is shown, never run.
  '.php': 'text/plain; charset=utf-8',
};

export function contentTypeFor(path: string): string {
  return CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
}

export interface StaticServerOptions {
  /** The directory served as the site root. */
  root: string;
  /** Names tried, in order, when a directory is requested. */
  indexFiles: string[];
}

/**
 * The emulator's stand-in for a static (or phpweb) deployment: files served straight
 * from the volume, so an edit is live on the next request without any restart.
 *
 * Invariants: nothing outside `root` is ever served (a path or symlink that resolves
 * outside answers 404, as the node does); only GET and HEAD are answered.
 */
export class StaticServer {
  private server: Server | null = null;

  constructor(private readonly opts: StaticServerOptions) {}

  get listening(): boolean {
    return this.server?.listening ?? false;
  }

  /** Listens on 127.0.0.1:port; rejects if the port is taken. */
  listen(port: number): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: NodeJS.ErrnoException) => {
        // A file removed between lookup and read is simply not there any more.
        const gone = err.code === 'ENOENT' || err.code === 'ENOTDIR';
        if (!res.headersSent) send(res, gone ? 404 : 500, gone ? 'Not Found' : 'Internal Server Error');
        else res.destroy();
      });
    });
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
        server.off('error', reject);
        this.server = server;
        resolve();
      });
    });
  }

  /** Stops accepting at once and drops open connections, like a stopped container. */
  close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, 'Method Not Allowed');
      return;
    }
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      send(res, 400, 'Bad Request');
      return;
    }
    if (pathname.includes('\0')) {
      send(res, 400, 'Bad Request');
      return;
    }
    const root = await realpath(this.opts.root).catch(() => null);
    if (root === null) {
      send(res, 404, 'Not Found');
      return;
    }
    // URL parsing already removed '..' segments; realpath below catches symlinks.
    const target = await this.resolveInside(root, join(root, pathname));
    if (target === null) {
      send(res, 404, 'Not Found');
      return;
    }
    let file = target;
    let info = await stat(file);
    if (info.isDirectory()) {
      if (!pathname.endsWith('/')) {
        // Relative links in the index page resolve against the directory only with the slash.
        res.setHeader('location', `${encodeURI(pathname)}/`);
        send(res, 301, 'Moved Permanently');
        return;
      }
      const index = await this.findIndex(root, target);
      if (index === null) {
        send(res, 404, 'Not Found');
        return;
      }
      file = index;
      info = await stat(file);
    }
    if (!info.isFile()) {
      send(res, 404, 'Not Found');
      return;
    }
    res.statusCode = 200;
    res.setHeader('content-type', contentTypeFor(file));
    res.setHeader('content-length', info.size);
    res.setHeader('last-modified', info.mtime.toUTCString());
    res.setHeader('cache-control', 'no-cache');
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = createReadStream(file);
    stream.once('error', () => res.destroy());
    stream.pipe(res);
  }

  /** The real path of `candidate` if it exists and lies within `root`; otherwise null. */
  private async resolveInside(root: string, candidate: string): Promise<string | null> {
    const real = await realpath(candidate).catch(() => null);
    if (real === null) return null;
    return real === root || real.startsWith(root + sep) ? real : null;
  }

  private async findIndex(root: string, dir: string): Promise<string | null> {
    for (const name of this.opts.indexFiles) {
      const found = await this.resolveInside(root, join(dir, name));
      if (found !== null && (await stat(found)).isFile()) return found;
    }
    return null;
  }
}

function send(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.end(`${text}\n`);
}
