/**
 * Templates for deployments.create with source `template`. The service's catalog is
 * not in the document (templates:read is among the unshown endpoints), so the emulator
 * bundles two small ones; an unknown id is a 404 naming them.
 */
import { notFound } from './errors.js';

export interface Template {
  runtime: string;
  entryFile: string;
  files: Record<string, string>;
}

const TEMPLATES: Record<string, Template> = {
  'node-hello': {
    runtime: 'nodejs',
    entryFile: 'index.js',
    files: {
      'index.js': "require('node:http').createServer((q, s) => s.end('Hello from a template\\n')).listen(Number(process.env.SERVER_PORT), '0.0.0.0');\n",
      'package.json': '{ "name": "node-hello", "version": "1.0.0", "main": "index.js" }\n',
    },
  },
  'static-hello': {
    runtime: 'static',
    entryFile: 'index.html',
    files: { 'index.html': '<!doctype html><title>Hello</title><h1>Hello from a template</h1>\n' },
  },
};

export function templateOf(id: string): Template {
  const t = TEMPLATES[id];
  if (!t) throw notFound(`template not found: ${id}; the emulator has ${Object.keys(TEMPLATES).join(', ')}`, 'template_not_found');
  return t;
}
