/** Exit codes other tools rely on (DESIGN.md "Interfaces"). */
export const EXIT = {
  /** Done, and the deployment is healthy (or nothing needed applying). */
  ok: 0,
  /** Failed: network, server or local I/O error. */
  failed: 1,
  /** Bad usage or configuration. */
  usage: 2,
  /** Refused: a conflict or a safety guard (mass delete, lock held). */
  refused: 3,
  /** Pushed, but the deployment is unhealthy. */
  unhealthy: 4,
  /** The address answered, but not as the API: a web page (a CDN challenge, a proxy) or a body that is not JSON (issue 30). */
  notApi: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * An error that already knows its one-line message and exit code.
 * The message names the problem and the fix; it never contains the API key.
 */
export class HostsyncError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'HostsyncError';
  }
}

export const usageError = (message: string): HostsyncError => new HostsyncError(message, EXIT.usage);
export const refusal = (message: string): HostsyncError => new HostsyncError(message, EXIT.refused);
