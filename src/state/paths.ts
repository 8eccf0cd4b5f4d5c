import { createHash } from 'node:crypto';
import path from 'node:path';

/** `.hostsync/` at the synced root: always ignored, never synced. */
export const STATE_DIR = '.hostsync';

/**
 * Per-deployment folder. The same deployment id on two services must not share a
 * base, so the folder name carries a short hash of the service address too.
 */
export function deploymentStateDir(root: string, baseUrl: string, deploymentId: string): string {
  const safeId = deploymentId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  const service = createHash('sha256').update(baseUrl).digest('hex').slice(0, 8);
  return path.join(root, STATE_DIR, `${safeId}-${service}`);
}

export const statCacheFile = (root: string): string => path.join(root, STATE_DIR, 'statcache.bin');
