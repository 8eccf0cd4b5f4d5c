#!/usr/bin/env node
// The CLI as users run it: dist/bin/hostsync.js, an esbuild bundle of what `tsc` wrote to
// dist/ (run after it: `npm run build`, `prepare`, `npm test`, `prepack`). Node's module
// loader cost about half of a small `status`'s CPU (resolving and reading ~210 files);
// the bundle reads 26. docs/decisions.md, "Start-up: the CLI is a bundle".
//
// Invariants:
// - Lazy loading holds: each command's module is a dynamic import, so esbuild splits it
//   into its own chunk, loaded only when the command runs.
// - Every output file sits in dist/bin/, two levels below the package root like the tsc
//   files it came from, so `new URL('../../README.md', import.meta.url)` (and docs/,
//   .syncignore.example) resolve the same from any chunk. Hence no chunk subfolder.
// - hash-worker.js is an entry beside the chunks: local/hash-pool.ts starts
//   `./hash-worker.js` relative to itself.
// - The library (dist/index.js and its types) is tsc's output, untouched. dist/bin/ is
//   this script's alone (emptied first): there is no src/bin/ for tsc to write there.
import { build } from 'esbuild';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const outdir = path.join(dist, 'bin');

/**
 * Stay runtime imports: @parcel/watcher and fsevents are native (a .node file found
 * relative to the package); typescript is a dev dependency the emulator's outline uses
 * only when it is installed (10 MB: never in the bundle).
 */
const EXTERNAL = ['@parcel/watcher', 'fsevents', 'typescript'];

/**
 * Lazily required packages left to Node at run time (`createRequire`, as tsc's build has
 * them). esbuild can split a chunk off only at an `import()`: bundled, a `require` inside a
 * function still puts the package's source in the caller's chunk, which every command on
 * that path reads and parses. tar (150 KiB) is required with a push's first archive;
 * `undici` (its index, 1 MB) is remote/undici-agent.ts's fallback, which the bundle never
 * takes (the lean files it prefers are bundled, so they are always there). The index a
 * multipart upload imports for FormData is bundled, as its own chunk, and shares the
 * agent's modules: one copy of undici's classes.
 */
const RUNTIME_REQUIRES = new Set(['tar', 'undici']);

/**
 * Our CommonJS packages are taken with `createRequire(import.meta.url)` so that Node's
 * CommonJS export lexer never runs over them (decisions.md, "Start-up"). esbuild cannot
 * follow such a call and would leave every one to Node's loader at run time, so in the
 * bundle they become plain `require('pkg')`, which esbuild inlines as a lazy `__commonJS`
 * wrapper (the package runs when first required, as before). A source that no longer
 * matches the patterns is left as written: slower, never wrong.
 */
const requireAsBundled = {
  name: 'require-as-bundled',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/].*\.js$/ }, async (args) => {
      if (!args.path.startsWith(dist + path.sep) || args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('createRequire(import.meta.url)')) return undefined;
      const contents = text
        .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
        .replace(/(?<![\w.$])(?:createRequire\(import\.meta\.url\)|require)\('([^']+)'\)/g, (_, spec) =>
          RUNTIME_REQUIRES.has(spec) ? `createRequire(import.meta.url)('${spec}')` : `require('${spec}')`,
        );
      return { contents, loader: 'js' };
    });
  },
};

await rm(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { hostsync: 'dist/cli/main.js', 'hash-worker': 'dist/local/hash-worker.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  external: EXTERNAL,
  plugins: [requireAsBundled],
  // Node's builtins, required from inside bundled CommonJS packages, need a `require` in an ES module.
  banner: { js: "import { createRequire as __hostsyncCreateRequire } from 'node:module'; const require = __hostsyncCreateRequire(import.meta.url);" },
  // No source maps: tsc's (dist/**/*.js.map) point at src/, which the package does not
  // ship; the bundle is not minified and names each module's source in a comment.
  logLevel: 'warning',
  metafile: true,
});

const metaAt = process.argv.indexOf('--metafile');
if (metaAt > 0) await writeFile(process.argv[metaAt + 1], JSON.stringify(result.metafile));
// A warning here is a require esbuild could not follow, or an import it could not resolve.
if (result.warnings.length > 0) {
  console.error('bundle.mjs: esbuild warned (see above); the bundle is not to be trusted');
  process.exitCode = 1;
}
// An import() of a CommonJS module resolves to { default: module.exports } here, where
// Node's loader also names its exports (evanw/esbuild#3245, code splitting): each such
// import must read `default` when the name is missing (remote/upload.ts does). A new one
// fails the build until it is checked and listed.
const CHECKED_COMMONJS_IMPORTS = new Set(['node_modules/undici/index.js']);
for (const output of Object.values(result.metafile.outputs)) {
  const entry = output.entryPoint;
  if (entry === undefined || result.metafile.inputs[entry]?.format !== 'cjs' || CHECKED_COMMONJS_IMPORTS.has(entry)) continue;
  console.error(`bundle.mjs: import() of the CommonJS module ${entry}: only its default export reaches the code (see CHECKED_COMMONJS_IMPORTS)`);
  process.exitCode = 1;
}
if (process.argv.includes('--report')) {
  const sizes = Object.entries(result.metafile.outputs)
    .filter(([f]) => f.endsWith('.js'))
    .map(([f, o]) => [path.relative(root, f), o.bytes])
    .sort((a, b) => b[1] - a[1]);
  for (const [f, bytes] of sizes) console.log(`${(bytes / 1024).toFixed(1).padStart(8)} KiB  ${f}`);
}
