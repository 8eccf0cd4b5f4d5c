/**
 * The apply's scope (deployments:write), which a key may lack while it holds files:write:
 * such a push would write every file and only then be refused. The API lists no key's
 * scopes, so the scope is learnt by deployments.update with an empty body, which needs
 * it and changes nothing, once per key and deployment (remote/scopes.ts caches the
 * answer): a push that knows pays no request for it.
 */
import { usageError } from '../../errors.js';
import type { ApplyRequest, ApplyResult } from '../../api/types.js';
import { ApiError } from '../../remote/errors.js';
import { OPERATIONS } from '../../remote/operations.js';
import { KnownScopes } from '../../remote/scopes.js';
import type { Session } from '../session.js';

const APPLY_SCOPE = OPERATIONS.deploymentsApply.scope;

const knownScopes = (session: Session): KnownScopes =>
  new KnownScopes({ origin: new URL(session.config.baseUrl).origin, apiKey: session.config.apiKey, deploymentId: session.config.deploymentId });

/** How to go on without the scope, in every message about it. */
const FIX = `give the key the "${APPLY_SCOPE}" scope (API keys are managed in the account's developer settings), or push with --no-apply`;

/** Whether this machine already knows the key may apply (so checkApplyScope costs no request). */
export const applyScopeKnown = (session: Session): Promise<boolean> => knownScopes(session).has(APPLY_SCOPE);

/**
 * Before a push writes: refuses (exit 2, nothing written) when the service says the key
 * may not apply. Any other failure of the probe lets the push go on: the apply will say.
 */
export async function checkApplyScope(session: Session): Promise<void> {
  const known = knownScopes(session);
  if (await known.has(APPLY_SCOPE)) return;
  try {
    await session.client.deployments.touch();
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) {
      throw usageError(
        `the API key may not apply changes to deployment ${session.config.deploymentId} (deployments.update answered 403: ` +
          `it needs the "${APPLY_SCOPE}" scope); nothing was written: ${FIX}`,
      );
    }
    return;
  }
  await known.remember(APPLY_SCOPE);
}

/** How an apply that was not answered in time starts its line in a push's `applyRefused`. */
export const APPLY_STILL_RUNNING = 'no answer to the apply yet: ';
/** An apply the service accepted but did not answer within the client's timeout. */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** Whether a push's `applyRefused` is an apply still running rather than refused. */
export const applyStillRunning = (line: string | null | undefined): boolean => line?.startsWith(APPLY_STILL_RUNNING) ?? false;

/**
 * deployments.apply, or, when the service refuses it (403) or does not answer it in time
 * after the files landed, the one line saying so: the push reports what it wrote instead
 * of failing as if nothing had.
 */
export async function applyOrRefusal(session: Session, req: ApplyRequest): Promise<ApplyResult | string> {
  try {
    return await session.client.deployments.apply(req);
  } catch (err) {
    if (err instanceof ApiError && TIMEOUT_CODES.has(err.code ?? '')) {
      // The service took the apply and is still at it (a slow install): the files landed. The
      // pending marker says when, so a later read that finds the app up clears it (app/status.ts).
      await session.store.markApplyTimedOut(new Date());
      return `${APPLY_STILL_RUNNING}${err.message.replace(/;.*$/, '')}; the files above landed, and the apply is most likely still running there (a slow install): \`hostsync status\` shows when the app is up, \`hostsync logs --follow\` its console; a push applies again if it never came`;
    }
    if (!(err instanceof ApiError && err.status === 403)) throw err;
    // Remembered, but gone (the key was narrowed): ask again next time.
    await knownScopes(session).forget(APPLY_SCOPE);
    return `the service refused the apply (403): the key needs the "${APPLY_SCOPE}" scope; the files landed and the apply stays pending: ${FIX}`;
  }
}
