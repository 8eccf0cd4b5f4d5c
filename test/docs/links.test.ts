/**
 * Every relative link in README.md, docs/ and bench/README.md resolves: the file exists and,
 * when the link names a heading, the page has it (GitHub's anchor rule: lower case, spaces to
 * dashes, punctuation dropped). A page moved or a heading renamed fails here, not in a reader's browser.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const pages = ['README.md', 'bench/README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

function anchors(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}

describe('documentation links', () => {
  it.each(pages)('%s: every relative link resolves', (page) => {
    const text = readFileSync(join(root, page), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    const broken: string[] = [];
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const link = m[1]!;
      if (/^[a-z]+:/i.test(link)) continue;
      const [target, anchor] = link.split('#') as [string, string | undefined];
      const file = target === '' ? join(root, page) : join(root, dirname(page), target);
      if (!existsSync(file)) { broken.push(`${link} (no ${relative(root, file)})`); continue; }
      if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${link} (no heading #${anchor})`);
    }
    expect(broken).toEqual([]);
  });
});
