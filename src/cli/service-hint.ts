/**
 * The service's hint names its own API actions ("start it with power start or apply");
 * someone at hostsync's prompt starts an app with `hostsync restart` (one deployments.apply
 * with restart) or `hostsync push`. Only the phrases the hosting API document's hints use.
 */
export function serviceHint(hint: string): string {
  return hint.replace(/start it with power start or apply/g, 'start it with `hostsync restart` (or `hostsync push`)');
}
