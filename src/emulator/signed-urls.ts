/**
 * One-time signed URLs "straight to the node" (files.uploadUrl, files.downloadUrl).
 * They live outside /api/v1: no Bearer key, no API rate limit.
 *
 * Invariant: a token is consumed by its FIRST request whatever that request's
 * outcome, so a URL works exactly once; an expired token is refused the same way.
 */
import { randomBytes } from 'node:crypto';
import { SIGNED_URL_TTL_MS } from '../api/limits.js';

export type SignedKind = 'upload' | 'download';

export interface SignedTarget {
  kind: SignedKind;
  deploymentId: string;
  /** Volume-relative path: the target directory (upload) or file (download). Re-resolved at use. */
  rel: string;
}

interface Entry extends SignedTarget {
  expiresAt: number;
}

export class SignedUrls {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(target: SignedTarget): { token: string; expiresAt: string } {
    this.sweep();
    const token = randomBytes(24).toString('base64url');
    const expiresAt = this.now() + SIGNED_URL_TTL_MS;
    this.entries.set(token, { ...target, expiresAt });
    return { token, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** The target if the token is valid for `kind`; the token is spent either way. */
  consume(kind: SignedKind, token: string): SignedTarget | null {
    const e = this.entries.get(token);
    if (!e || e.kind !== kind) return null;
    this.entries.delete(token);
    return e.expiresAt > this.now() ? e : null;
  }

  private sweep(): void {
    const now = this.now();
    for (const [t, e] of this.entries) if (e.expiresAt <= now) this.entries.delete(t);
  }
}
