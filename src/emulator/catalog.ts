/**
 * runtimes.list: the catalog of the document's runtime values, split the way the
 * document splits them (runtimes, services, databases). Versions are plausible
 * stand-ins; the emulator itself runs node apps on its own Node binary.
 */
import type { Route } from './context.js';

interface CatalogEntry {
  id: string;
  label: string;
  versions: string[];
  defaultVersion: string;
  defaultEntry?: string;
}

const rt = (id: string, label: string, versions: string[], defaultEntry: string): CatalogEntry => ({ id, label, versions, defaultVersion: versions[0]!, defaultEntry });

export const CATALOG: { runtimes: CatalogEntry[]; services: CatalogEntry[]; databases: CatalogEntry[] } = {
  runtimes: [
    rt('nodejs', 'Node.js', ['22', '20', '18'], 'index.js'),
    rt('python', 'Python', ['3.12', '3.11', '3.10'], 'main.py'),
    rt('java', 'Java', ['21', '17'], 'app.jar'),
    rt('php', 'PHP (CLI)', ['8.3', '8.2'], 'index.php'),
    rt('go', 'Go', ['1.23', '1.22'], 'main.go'),
    rt('rust', 'Rust', ['1.82'], 'src/main.rs'),
    rt('cpp', 'C++', ['13'], 'main.cpp'),
    rt('lua', 'Lua', ['5.4'], 'main.lua'),
    rt('nodemon', 'Node.js (nodemon)', ['22', '20'], 'index.js'),
    rt('bun', 'Bun', ['1.1'], 'index.ts'),
    rt('static', 'Static site', ['1'], 'index.html'),
    rt('phpweb', 'PHP website', ['8.3', '8.2'], 'index.php'),
  ],
  services: [rt('lavalink', 'Lavalink', ['4'], 'Lavalink.jar'), rt('uptimekuma', 'Uptime Kuma', ['1'], 'server/server.js')],
  databases: [
    { id: 'redis', label: 'Redis', versions: ['7'], defaultVersion: '7' },
    { id: 'postgresql', label: 'PostgreSQL', versions: ['16', '15'], defaultVersion: '16' },
    { id: 'mongodb', label: 'MongoDB', versions: ['7'], defaultVersion: '7' },
    { id: 'mysql', label: 'MySQL', versions: ['8'], defaultVersion: '8' },
  ],
};

export const catalogRoutes: Route[] = [
  { method: 'GET', pattern: '/runtimes', op: 'runtimes.list', scope: 'deployments:read', handler: async () => CATALOG },
];
