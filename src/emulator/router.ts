/** Matches "/api/v1"-relative paths against the route table. */
import type { Route } from './context.js';

interface Compiled {
  route: Route;
  re: RegExp;
  names: string[];
}

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => {
      const names: string[] = [];
      const src = route.pattern
        .split('/')
        .map((seg) => {
          if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(seg.slice(1));
          return '([^/]+)';
        })
        .join('/');
      return { route, re: new RegExp(`^${src}/?$`), names };
    });
  }

  /** First route whose pattern and method match; a path known under other methods is a 405. */
  match(method: string, pathname: string): Match {
    const allow: string[] = [];
    for (const c of this.compiled) {
      const m = c.re.exec(pathname);
      if (!m) continue;
      if (c.route.method !== method) {
        allow.push(c.route.method);
        continue;
      }
      const params: Record<string, string> = {};
      let bad = false;
      c.names.forEach((n, i) => {
        try {
          params[n] = decodeURIComponent(m[i + 1]!);
        } catch {
          bad = true;
        }
      });
      if (bad) continue;
      return { kind: 'found', route: c.route, params };
    }
    return allow.length ? { kind: 'method', allow: [...new Set(allow)] } : { kind: 'none' };
  }
}
