import { describe, expect, it } from 'vitest';
import { entryNameProblem, relPathProblem, volumePathProblem } from '../../src/model/safe-path.js';

describe('paths that stay inside the root (issue 28, item 1)', () => {
  it('refuses every escape, on any platform', () => {
    for (const p of ['', '..', '../victim.txt', 'sub/../../x', 'a/./b', 'a//b', '/etc/passwd', 'a\0b', '..\\x', 'a\\..\\..\\x', '\\\\host\\share', 'C:\\x', 'c:/x', 'C:', 'a/', 'a/..']) {
      expect(relPathProblem(p), JSON.stringify(p)).not.toBeNull();
    }
  });

  it('takes ordinary and odd-but-legal names', () => {
    for (const p of ['a.txt', 'sub/dir/f.js', '...', '..foo', 'foo..', '.env.example', 'a\\b.txt', 'x y/ü.txt', '.hidden/.x', 'a:b.txt', 'c:x']) {
      expect(relPathProblem(p), p).toBeNull();
    }
  });

  it('reads a service path: one leading "/" is the volume root, one trailing "/" a folder; the root itself is fine', () => {
    for (const p of ['', '/', '/a.txt', 'a.txt', '/src/', 'src/']) expect(volumePathProblem(p), p).toBeNull();
    for (const p of ['//etc/passwd', '/../x', '/sub/../../x', '..', 'a//b', '/a\0', '//']) expect(volumePathProblem(p), p).not.toBeNull();
  });

  it('a listing entry is one plain name', () => {
    for (const n of ['a.txt', '...', 'a\\b']) expect(entryNameProblem(n), n).toBeNull();
    for (const n of ['', '.', '..', 'a/b', '..\\x', 'a\0']) expect(entryNameProblem(n), n).not.toBeNull();
  });
});
