import type { Session } from '../sync/session.js';
import { namedPaths } from '../sync/scope.js';
import { connect, deploymentRef, type ConnectionOptions, type DeploymentRef } from './options.js';
import { requestsOf, runCommand, type Outcome, type RequestsSummary } from './result.js';

/** Options of a command that takes PATH... arguments (pull, diff, resolve). */
export interface PathOptions extends ConnectionOptions {
  /** Paths to limit the command to; relative ones are taken from `cwd` when it lies inside the project, else from the project root. */
  paths?: string[];
  /** Default process.cwd(). */
  cwd?: string;
}

/**
 * The run of a command on one session: connect, run `body`, close, and come back with a
 * result whatever happened (runCommand). `empty` gets the requests and deployment known
 * so far, so a failure still reports them. `action` (a command that changes the
 * deployment) passes the target's `"confirm": true` gate first (options.ts confirmTarget).
 */
export function runOnSession<T extends { ok: boolean }>(
  opts: ConnectionOptions,
  empty: (known: { requests: RequestsSummary; deployment: DeploymentRef | null }) => T,
  body: (session: Session) => Promise<Outcome<T>>,
  action?: string,
): Promise<{ result: Outcome<T>; thrown: boolean }> {
  let session: Session | null = null;
  return runCommand(
    () => empty({ requests: requestsOf(session?.client.stats()), deployment: session ? deploymentRef(session.config) : null }),
    async () => {
      session = await connect(opts, action);
      try {
        return await body(session);
      } finally {
        await session.close();
      }
    },
    () => session?.config.apiKey ?? opts.apiKey ?? (opts.env ?? process.env).HOSTSYNC_API_KEY,
  );
}

/** The named paths of `opts`, root-relative, or null for the whole tree. */
export const scopesOf = (session: Session, opts: PathOptions): string[] | null =>
  opts.paths && opts.paths.length > 0 ? namedPaths(session.config.root, opts.cwd ?? process.cwd(), opts.paths) : null;
