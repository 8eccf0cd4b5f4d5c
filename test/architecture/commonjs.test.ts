/**
 * CommonJS packages are required, not imported (README, "Decisions where the design is
 * silent", start-up): an ESM import runs Node's CommonJS export lexer over the package,
 * which a command pays in CPU at every start. The emulator is a server, started once: exempt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const abs = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'emulator' ? [] : sources(abs);
    return d.name.endsWith('.ts') ? [abs] : [];
  });
}

/**
 * Whether `name` is CommonJS at heart: its package is not `"type": "module"`. An ESM
 * wrapper it may ship (commander's esm.mjs) imports the CommonJS files all the same.
 */
function isCommonJs(name: string): boolean {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { type?: string };
  return pkg.type !== 'module';
}

function valueImports(): { file: string; pkg: string }[] {
  const out: { file: string; pkg: string }[] = [];
  for (const file of sources(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^'.][^']*)'/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('node:')) continue;
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
      out.push({ file: path.relative(SRC, file), pkg });
    }
  }
  return out;
}

describe('CommonJS packages', () => {
  it('the check tells a CommonJS package from an ESM one', () => {
    expect(isCommonJs('commander')).toBe(true); // its "import" condition is a wrapper over the CommonJS files
    expect(isCommonJs('ignore')).toBe(true);
    expect(isCommonJs('pino')).toBe(true);
    expect(isCommonJs('p-queue')).toBe(false);
  });

  it('are never imported as values outside the emulator', () => {
    const found = valueImports();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter((i) => isCommonJs(i.pkg)).map((i) => `${i.file}: ${i.pkg}`)).toEqual([]);
  });
});
