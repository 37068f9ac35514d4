// Injected endpoint faults for the durability tests: which requests fail, and how, is drawn from a seeded PRNG in
// arrival order, so a test run with the same seed and the same request sequence meets the same faults.
import { seededRandom } from '../seeded-random';

export type FaultKind = '429' | '500' | 'reset' | 'timeout';
export const FAULT_KINDS: readonly FaultKind[] = ['429', '500', 'reset', 'timeout'];

export interface FaultOptions {
  /** Fraction of valid chat requests that fail, in [0, 1]. */
  rate: number;
  /** Drawn uniformly for each faulted request. */
  kinds: FaultKind[];
  seed?: number;
  /** '429': value of the `retry-after-ms` header (default 50); `retry-after` is this in whole seconds, rounded up. */
  retryAfterMs?: number;
  /** 'timeout': how long the request is held before its connection is reset (default 30 000). */
  holdMs?: number;
}

export function validateFaultOptions(f: FaultOptions): void {
  if (!(f.rate >= 0 && f.rate <= 1)) throw new RangeError(`faults.rate must be in [0, 1], got ${f.rate}`);
  const bad = f.kinds.filter((k) => !FAULT_KINDS.includes(k));
  if (bad.length) throw new RangeError(`faults.kinds: unknown ${bad.join(', ')} (known: ${FAULT_KINDS.join(', ')})`);
  if (f.rate > 0 && f.kinds.length === 0) throw new RangeError('faults.kinds is empty but faults.rate > 0');
}

/** Returns, for each request in arrival order, the fault it gets (or undefined: serve it normally). */
export function createFaultPlan(f: FaultOptions | undefined): () => FaultKind | undefined {
  if (!f || f.rate <= 0 || f.kinds.length === 0) return () => undefined;
  validateFaultOptions(f);
  const rand = seededRandom(f.seed ?? 1);
  return () => {
    // Two draws per request, always, so whether request i faults never depends on the kinds drawn before it.
    const hit = rand() < f.rate;
    const kind = f.kinds[Math.floor(rand() * f.kinds.length)];
    return hit ? kind : undefined;
  };
}
