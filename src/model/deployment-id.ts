/**
 * What a deployment id may be. The id becomes a segment of every API path
 * (`/deployments/:id/files/index`), and it comes from outside: a flag, the environment, a
 * hostsync.json a clone brought, a service's list. `..` made `POST /deployments/../files/index`
 * the request `POST /files/index`, another endpoint (issue 44, item 9); `a/../b`, `?`, `#`
 * or `%2F` would do the same on a server that decodes before it routes.
 *
 * The contract (hosting-api.md) says only that ids are strings. The ones seen (the
 * emulator's `dep_3f2a9c01b4d7`, a UUID, a number, a Mongo ObjectId, a ULID) are letters,
 * digits, `_` and `-`; `.` is allowed after the first character (`my.app`), which is what
 * keeps `.` and `..` out. Nothing else: no `/`, `\`, `%`, `?`, `#`, white space or
 * control character.
 */
export const DEPLOYMENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Why `id` is not a deployment id; null when it is one. */
export function deploymentIdProblem(id: string): string | null {
  if (DEPLOYMENT_ID.test(id)) return null;
  if (id === '') return 'it is empty';
  if (id === '.' || id === '..') return `"${id}" names a folder of the API, not a deployment`;
  if (id.length > 128) return 'it is longer than 128 characters';
  if (/^[._-]/.test(id)) return `it starts with "${id[0]}"`;
  const bad = [...id].find((c) => !/[A-Za-z0-9._-]/.test(c))!;
  return `it holds ${JSON.stringify(bad)}`;
}
