import { createServer } from 'node:net';

/**
 * Binds `port` on 127.0.0.1 (0 = any free one), reads the port the kernel gave,
 * and releases it. Rejects when the port is taken.
 *
 * A port bound by an app on 0.0.0.0 or [::] also makes this bind fail on Linux, so
 * "free here" means "free for an app that listens on all interfaces" too.
 */
function bindAndRelease(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (bound > 0 ? resolve(bound) : reject(new Error('could not read the bound port'))));
    });
  });
}

/** A port that was free a moment ago. Another process may still take it before the app binds; callers re-check at each start. */
export function allocatePort(): Promise<number> {
  return bindAndRelease(0);
}

export async function isPortFree(port: number): Promise<boolean> {
  try {
    await bindAndRelease(port);
    return true;
  } catch {
    return false;
  }
}
