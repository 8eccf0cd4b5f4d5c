/**
 * undici's Agent and its `request`, without undici's index. The index loads about 55
 * modules (fetch, WebSocket, caches, mocks, interceptors) of which a command uses two:
 * measured on Node 20, `import('undici')` costs 0.15-0.20 s of CPU and these two files
 * (with what they require) 0.03-0.05 s. Every command that makes a request paid the
 * difference, a warm no-op `status` included (about a tenth of its CPU at 100k files).
 *
 * Invariant: the classes are undici's own (the same modules the index would load), so
 * behaviour is the package's. Should an undici release move these files, or export them
 * differently, the index is loaded instead: slower, never wrong.
 */
import { createRequire } from 'node:module';
import type { Agent, Dispatcher } from 'undici';

export type RequestOptions = Dispatcher.RequestOptions;
export type ResponseData = Dispatcher.ResponseData;
/** One exchange on `agent`: undici's Dispatcher#request. */
export type RequestFn = (agent: Agent, options: RequestOptions) => Promise<ResponseData>;

export interface UndiciAgent {
  Agent: typeof Agent;
  request: RequestFn;
  /** Whether the lean files were used (false: the index was loaded). */
  lean: boolean;
}

const require = createRequire(import.meta.url);
let loaded: UndiciAgent | null = null;

/** Loaded once per process, on first use. */
export function undiciAgent(): UndiciAgent {
  loaded ??= lean() ?? { Agent: (require('undici') as typeof import('undici')).Agent, request: (agent, options) => agent.request(options), lean: false };
  return loaded;
}

function lean(): UndiciAgent | null {
  try {
    const AgentClass = require('undici/lib/dispatcher/agent.js') as unknown;
    const api = require('undici/lib/api/index.js') as { request?: unknown };
    if (typeof AgentClass !== 'function' || typeof api.request !== 'function') return null;
    // The index mixes `api` into Dispatcher.prototype; called with the agent as `this`, it is the same call.
    const request = api.request as (this: Agent, options: RequestOptions) => Promise<ResponseData>;
    return { Agent: AgentClass as typeof Agent, request: (agent, options) => request.call(agent, options), lean: true };
  } catch {
    return null;
  }
}
