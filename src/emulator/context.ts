/** What a route handler is given, and the shape of a route. */
import type { IncomingMessage } from 'node:http';
import type { BackupStore } from './backups.js';
import type { EmulatedDeployment, DeploymentSpec } from './deployment.js';
import type { FaultInjector } from './faults.js';
import type { SignedUrls } from './signed-urls.js';
import type { JsonObject } from './validate.js';
import { notFound } from './errors.js';

/** State shared by every handler of one emulator. */
export interface EmulatorCore {
  /** "http://127.0.0.1:PORT" (set once listening). */
  baseUrl: string;
  readonly indexMaxEntries: number;
  readonly uploadMaxBytes: number;
  readonly faults: FaultInjector;
  readonly signed: SignedUrls;
  readonly deployments: Map<string, EmulatedDeployment>;
  createDeployment(spec: DeploymentSpec): EmulatedDeployment;
  /** Forgets the deployment at once and tears it down in the background (deployments.delete). */
  removeDeployment(id: string): void;
  /** Projects by id; every deployment's projectId names one of them. */
  readonly projects: Map<string, ProjectRecord>;
  /** Where volumes, history and restore points live. */
  readonly dataDir: string;
  /** Deterministic stand-ins for what the service reaches outside (DNS, registries). */
  readonly outside: OutsideWorld;
  /** Restore points of every deployment. */
  readonly backups: BackupStore;
  /** Saves what a --data folder keeps (ids, names, startup) after a change to it; no-op on a temporary folder. */
  persist(): void;
}

export interface ProjectRecord {
  id: string;
  name: string;
  /** Owner's user id; only the owner may delete a project. */
  ownerId: string;
  createdAt: string;
}

export interface OutsideWorld {
  /** verifyCustomDomain answers verified: true only when this is set (--dns-verified). */
  dnsVerified: boolean;
}

export interface Ctx {
  core: EmulatorCore;
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body; {} for GET and for an empty body. Read only after auth and scope passed. */
  body: () => Promise<JsonObject>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Relative to /api/v1, with `:name` segments. */
  pattern: string;
  /** The document's operation name; also the stats key. */
  op: string;
  scope: string;
  /** Scopes needed on top of `scope` (deployments.sftp needs read AND write). */
  alsoScopes?: string[];
  /** The document marks it Destructive; answers carry `X-Destructive: true`. */
  destructive?: boolean;
  handler: (ctx: Ctx) => Promise<unknown>;
}

/** The deployment named by `:id`, or the document's 404 for an unknown deployment. */
export function deploymentOf(ctx: Ctx): EmulatedDeployment {
  const id = ctx.params.id ?? '';
  const dep = ctx.core.deployments.get(id);
  if (!dep) throw notFound(`deployment not found: ${id}`, 'deployment_not_found');
  return dep;
}

/** Route for `/deployments/:id/...`: the handler receives the deployment already looked up. */
export function depRoute(
  method: Route['method'],
  pattern: string,
  op: string,
  scope: string,
  handler: (ctx: Ctx, dep: EmulatedDeployment) => Promise<unknown>,
  extra: Pick<Route, 'alsoScopes' | 'destructive'> = {},
): Route {
  return { method, pattern, op, scope, ...extra, handler: (ctx) => handler(ctx, deploymentOf(ctx)) };
}
