// Deterministic randomness from explicit seeds, never Math.random: a resumed iteration is a new Temporal run and
// must make the same choices (tree picks, pair shuffles, simulator answers) as the run it replaces.
import { createHash } from 'node:crypto';

/** A 32-bit unsigned integer derived from any list of parts. */
export function hashSeed(...parts: Array<string | number>): number {
  return createHash('sha256').update(parts.join('\u0001')).digest().readUInt32BE(0);
}

/** mulberry32: small, fast, good enough for sampling decisions. Returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates on a copy. */
export function shuffled<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
