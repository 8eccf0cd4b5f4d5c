/**
 * docs.get: the document gives no response shape, so the emulator answers
 * {slug, title, content (markdown)} with a few bundled pages about itself.
 */
import type { Route } from './context.js';
import { notFound } from './errors.js';

const PAGES: Record<string, { title: string; content: string }> = {
  emulator: {
    title: 'The hostsync emulator',
    content: [
      '# The hostsync emulator',
      '',
      'A local stand-in for the Deployment Hosting Control API on 127.0.0.1. It follows hosting-api.md;',
      'where the service reaches the outside world (DNS, git hosts, package registries) it uses the',
      'deterministic stand-ins listed in the hostsync docs (docs/emulator.md).',
    ].join('\n'),
  },
  'rate-limits': {
    title: 'Rate limits',
    content: '# Rate limits\n\n120 requests per key and 300 per user per sliding 60 s. Every answer carries X-RateLimit-Remaining; past the limit the answer is 429 with Retry-After.',
  },
  errors: {
    title: 'Errors',
    content: '# Errors\n\nEvery error answer is {"error": "<one line>", "code": "<snake_case>"}: 400 bad input, 401 key, 403 scope, 404 not found, 405 method, 409 precondition, 413 size, 415 not JSON, 429 rate limit.',
  },
};

export const docsRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/docs/:slug',
    op: 'docs.get',
    scope: 'docs:read',
    handler: async (ctx) => {
      const slug = ctx.params.slug ?? '';
      const page = PAGES[slug];
      if (!page) throw notFound(`no docs page "${slug}"; pages: ${Object.keys(PAGES).join(', ')}`, 'doc_not_found');
      return { slug, ...page };
    },
  },
];
