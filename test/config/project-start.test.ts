import { describe, expect, it } from 'vitest';
import { detectProjectStart, servedStaticFolders, type ProjectFiles } from '../../src/config/project-start.js';

function project(files: Record<string, string>): ProjectFiles {
  const has = (p: string) => p in files || Object.keys(files).some((f) => f.startsWith(`${p}/`));
  return {
    packageJson: files['package.json'] ?? null,
    requirements: files['requirements.txt'] ?? null,
    pyproject: files['pyproject.toml'] ?? null,
    procfile: files.Procfile ?? null,
    pythonVersion: files['runtime.txt'] ?? files['.python-version'] ?? null,
    exists: has,
    read: (p) => files[p] ?? null,
  };
}

describe('detectProjectStart', () => {
  it('a discord.js bot: entry from main / scripts.start, 512 MB for its install, Node major from engines', () => {
    const r = detectProjectStart(project({
      'package.json': JSON.stringify({ main: 'bot.js', scripts: { start: 'node bot.js' }, engines: { node: '>=20.11' }, dependencies: { 'discord.js': '^14' } }),
      'bot.js': '',
    }))!;
    expect(r.startup).toEqual({ runtime: 'nodejs', entryFile: 'bot.js', runtimeVersion: '20' });
    expect(r.size).toEqual({ ramMB: 512 });
    expect(r.hotPaths).toEqual([]);
  });

  it('a start script that is more than node <file> becomes the start command, keeping the install', () => {
    const r = detectProjectStart(project({ 'package.json': JSON.stringify({ scripts: { start: 'tsx src/main.ts' }, dependencies: { next: '14' } }) }))!;
    expect(r.startup.startCommand).toBe('npm install && npm start');
    expect(r.size).toEqual({ ramMB: 1024 });
  });

  it('main naming a file that does not exist falls back to the files found', () => {
    const r = detectProjectStart(project({ 'package.json': JSON.stringify({ main: 'dist/index.js' }), 'server.js': '' }))!;
    expect(r.startup.entryFile).toBe('server.js');
    expect(r.size).toEqual({});
  });

  it('Express: only the folder express.static serves is hot, never views/', () => {
    const r = detectProjectStart(project({
      'package.json': JSON.stringify({ main: 'app.js', dependencies: { express: '4' } }),
      'app.js': "app.set('views', 'views');\napp.use(express.static(path.join(__dirname, 'public')));\n",
      'public/style.css': '',
      'views/index.html': '',
    }))!;
    expect(r.hotPaths).toEqual(['public/**']);
  });

  it('Flask: entry app.py, static/ hot, templates/ not; the Procfile command when it is more than python <file>', () => {
    const r = detectProjectStart(project({
      'requirements.txt': 'Flask==3.0\ngunicorn\n',
      'app.py': 'app = Flask(__name__)\n',
      'static/app.css': '',
      'templates/index.html': '',
      Procfile: 'web: gunicorn app:app\n',
      'runtime.txt': 'python-3.11.4\n',
    }))!;
    expect(r.startup).toEqual({ runtime: 'python', entryFile: 'app.py', startCommand: 'pip install -r requirements.txt && gunicorn app:app', runtimeVersion: '3.11' });
    expect(r.size).toEqual({ ramMB: 512 });
    expect(r.hotPaths).toEqual(['static/**']);
  });

  it('a Python bot from its Procfile', () => {
    const r = detectProjectStart(project({ 'requirements.txt': 'discord.py\n', 'bot.py': '', 'main.py': '', Procfile: 'worker: python bot.py\n' }))!;
    expect(r.startup).toEqual({ runtime: 'python', entryFile: 'bot.py' });
  });

  it('a static site; nothing known', () => {
    expect(detectProjectStart(project({ 'index.html': '' }))!.startup).toEqual({ runtime: 'static', entryFile: 'index.html' });
    expect(detectProjectStart(project({ 'notes.txt': '' }))).toBeNull();
  });

  it('servedStaticFolders reads the usual spellings', () => {
    expect(servedStaticFolders("app.use(express.static('public'))")).toEqual(['public']);
    expect(servedStaticFolders('app.use(serveStatic(path.resolve(__dirname, "assets/")))')).toEqual(['assets']);
    expect(servedStaticFolders("fastify.register(fastifyStatic, { root: path.join(__dirname, 'www') })")).toEqual(['www']);
    expect(servedStaticFolders("fs.readFileSync('views/banner.html')")).toEqual([]);
  });
});
