/** Text facts shared by the read and write handlers. */

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Lines as an editor counts them: "" has 0, "a" and "a\n" have 1, "a\nb" has 2. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

/** Binary = contains a NUL byte or is not valid UTF-8; such content is never returned as text. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** Splits keeping each line's "\n", so concatenating any run of pages rebuilds the file exactly. */
export function splitLinesKeepEnds(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    out.push(text.slice(start, i + 1));
    start = i + 1;
  }
  if (start < text.length) out.push(text.slice(start));
  return out;
}

/** Non-overlapping occurrences of `needle` (non-empty), as String.replaceAll counts them. */
export function countOccurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** A few numbered lines around character `index`, to show an edit's result. */
export function contextAround(text: string, index: number, radius = 3): string {
  const lines = text.split('\n');
  const lineNo = text.slice(0, Math.max(0, index)).split('\n').length - 1;
  const from = Math.max(0, lineNo - radius);
  const to = Math.min(lines.length, lineNo + radius + 1);
  return lines
    .slice(from, to)
    .map((l, i) => `${String(from + i + 1).padStart(5)}| ${l}`)
    .join('\n');
}
