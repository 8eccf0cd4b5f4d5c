/**
 * Fault injection for tests and benchmarks (DESIGN.md, `--faults SPEC`).
 * SPEC is comma-separated `kind=probability`; each request rolls each kind once.
 */
import { mulberry32 } from './prng.js';

/**
 * `html403`: an HTML 403 challenge page from what sits in front of the API (a CDN's bot
 * check), answered before the API sees the request: no JSON, no rate-limit header.
 */
export const FAULT_KINDS = ['5xx', 'reset', '429', 'partial', 'html403'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultSpec = Record<FaultKind, number>;

export function parseFaultSpec(spec: string): FaultSpec {
  const out: FaultSpec = { '5xx': 0, reset: 0, '429': 0, partial: 0, html403: 0 };
  const seen = new Set<string>();
  for (const rawPart of spec.split(',')) {
    const part = rawPart.trim();
    if (part === '') continue;
    const m = /^([^=\s]+)\s*=\s*(\S+)$/.exec(part);
    if (!m) throw new Error(`bad fault "${part}": expected kind=probability, e.g. 5xx=0.1,reset=0.05`);
    const kind = m[1]!;
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new Error(`bad fault kind "${kind}": use one of ${FAULT_KINDS.join(', ')}`);
    }
    if (seen.has(kind)) throw new Error(`bad fault spec: "${kind}" is given twice`);
    seen.add(kind);
    const p = Number(m[2]);
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(m[2]!) || !(p >= 0 && p <= 1)) {
      throw new Error(`bad fault probability "${m[2]}" for ${kind}: use a number from 0 to 1`);
    }
    out[kind as FaultKind] = p;
  }
  return out;
}

export class FaultInjector {
  private spec: FaultSpec;
  private readonly random: () => number;

  constructor(spec: string, seed?: number) {
    this.spec = parseFaultSpec(spec);
    this.random = seed === undefined ? Math.random : mulberry32(seed);
  }

  set(spec: string): void {
    this.spec = parseFaultSpec(spec);
  }

  current(): FaultSpec {
    return { ...this.spec };
  }

  /** A kind at probability 0 never draws, so a seeded sequence depends only on the kinds in use. */
  roll(kind: FaultKind): boolean {
    const p = this.spec[kind];
    if (p <= 0) return false;
    return this.random() < p;
  }

  /** For `reset`: drop the connection before the handler runs (true) or after (false). */
  resetBefore(): boolean {
    return this.random() < 0.5;
  }

  /** For `partial`: how many of n files land before the injected failure (0..n-1). */
  partialPrefix(n: number): number {
    return Math.floor(this.random() * n);
  }
}
