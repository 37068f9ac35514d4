// MT19937 (Matsumoto & Nishimura 1998, mt19937ar.c), seeded the two ways the seeds seed it, so a task set they drew
// can be drawn again bit for bit without Python:
//   Python `random.seed(n)` (CPython Modules/_randommodule.c random_seed: init_by_array over |n|'s 32-bit words) and
//   `random.shuffle` (Lib/random.py: Fisher–Yates from the end, `_randbelow` by rejection on getrandbits);
//   NumPy's legacy `np.random.seed(n)` (init_genrand(n)) and `np.random.randint(low, high)` (int64: the next word
//   masked to the smallest 2^k − 1 covering the range, rejected while above it — distributions.c
//   random_bounded_uint64_fill, `use_masked`).
const N = 624;
const M = 397;

export class MersenneTwister {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  private initGenrand(seed: number): void {
    this.mt[0] = seed >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = this.mt[i - 1] ^ (this.mt[i - 1] >>> 30);
      this.mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    this.initGenrand(19650218);
    const mt = this.mt;
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** As Python's `random.seed(n)` for a non-negative integer below 2^53. */
  static python(seed: number): MersenneTwister {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new Error(`python seed must be a non-negative safe integer, got ${seed}`);
    const key: number[] = [];
    for (let n = seed; n > 0; n = Math.floor(n / 2 ** 32)) key.push(n % 2 ** 32);
    const g = new MersenneTwister();
    g.initByArray(key.length ? key : [0]);
    return g;
  }

  /** As NumPy's legacy `np.random.seed(n)` (RandomState), 0 ≤ n < 2^32. */
  static numpyLegacy(seed: number): MersenneTwister {
    if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) throw new Error(`numpy seed must be in [0, 2^32), got ${seed}`);
    const g = new MersenneTwister();
    g.initGenrand(seed);
    return g;
  }

  /** The next 32-bit output (genrand_int32). */
  nextUint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let k = 0; k < N; k++) {
        const y = (mt[k] & 0x80000000) | (mt[(k + 1) % N] & 0x7fffffff);
        mt[k] = mt[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

const bitLength = (n: number) => (n === 0 ? 0 : Math.floor(Math.log2(n)) + 1);

/** Python's `random._randbelow(n)` for 1 ≤ n < 2^32: the top bit_length(n) bits of a word, until below n. */
function randBelow(g: MersenneTwister, n: number): number {
  const k = bitLength(n);
  for (;;) {
    const r = g.nextUint32() >>> (32 - k);
    if (r < n) return r;
  }
}

/** Python's `random.shuffle(x)` on a copy, drawing from `g`. */
export function pythonShuffle<T>(items: readonly T[], g: MersenneTwister): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = randBelow(g, i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** NumPy's legacy `randint(low, high)` (high exclusive, range below 2^32) for one value. */
export function numpyRandint(g: MersenneTwister, low: number, high: number): number {
  const range = high - 1 - low;
  if (!Number.isInteger(range) || range < 0 || range >= 2 ** 32) throw new Error(`randint: bad range [${low}, ${high})`);
  if (range === 0) return low;
  const mask = 2 ** bitLength(range) - 1;
  for (;;) {
    const v = (g.nextUint32() & mask) >>> 0;
    if (v <= range) return low + v;
  }
}
