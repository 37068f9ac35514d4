// ColBench code scoring under `compat: seed` against the seed's evaluator (sweet_rl sweet_rl/utils/code_utils.py
// check_correctness) on the kinds where our sandbox and the seed's in-process evaluation part ways: Decimal and
// Fraction results against float ones, results with their own __eq__, fences tagged ```py / ```Python with
// blocklisted text around them, and limits the seed does not have (reference run time, value size, nesting).
//  - The table: outcomes we derived by reading check_correctness (and get_function_output, which it calls).
//  - tests/fixtures/colbench/seed-code-verdicts.json: 116 generated (reference, answer, tests) cases of those kinds
//    with the fraction the seed's check_correctness gave when run outside this repository (Python 3.11); the test
//    prints the agreement of each mode. Slots 180-181 belong to this file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreCodeAnswer } from '../../../../../activities/recipes/colbench/scoring';
import { runCodeTests } from '../../../../../activities/sandbox/code-tests';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

type Compat = 'fixed' | 'seed';
const task = (reference: string, testCases: Record<string, string>) => ({
  id: 't',
  kind: 'code' as const,
  problem: 'P',
  reference,
  testCases,
});
const fraction = async (reference: string, answer: string, tests: Record<string, string>, compat: Compat, slot = 180) =>
  (await scoreCodeAnswer(answer, task(reference, tests), runCodeTests, { compat, slot })).fraction;

const fence = (code: string, tag = 'python') => `Here it is:\n\`\`\`${tag}\n${code}\`\`\`\n`;
const RATIO = 'def ratio(a, b):\n    return a / b\n';
const TOTAL = 'def total(xs):\n    return sum(xs)\n';

// [what, reference, answer, tests, seed fraction, fixed fraction, why (check_correctness)]
const ROWS: [string, string, string, Record<string, string>, number, number, string][] = [
  [
    'Fraction(1, 2) against 0.5',
    RATIO,
    fence('def ratio(a, b):\n    from fractions import Fraction\n    return Fraction(a, b)\n'),
    { a: 'ratio(1, 2)' },
    1,
    0,
    '`ground_truth_output == test_output` in one process: 0.5 == Fraction(1, 2)',
  ],
  [
    'Decimal(1) / Decimal(5) against 0.2',
    RATIO,
    fence('def ratio(a, b):\n    from decimal import Decimal\n    return Decimal(a) / Decimal(b)\n'),
    { a: 'ratio(1, 5)' },
    0,
    0,
    'the float 0.2 is not exactly Decimal("0.2")',
  ],
  [
    'an __eq__ that always says True, class inside the function',
    TOTAL,
    fence('def total(xs):\n    class Yes:\n        def __eq__(self, other):\n            return True\n    return Yes()\n'),
    { a: 'total([1, 2])' },
    1,
    0,
    "int.__eq__ gives NotImplemented, Python then asks the answer's __eq__",
  ],
  [
    'the same class at module level',
    TOTAL,
    fence('class Yes:\n    def __eq__(self, other):\n        return True\ndef total(xs):\n    return Yes()\n'),
    { a: 'total([1, 2])' },
    0,
    0,
    'get_function_output execs inside a function: total() cannot see Yes (NameError → None)',
  ],
  [
    '```py fence',
    TOTAL,
    fence(TOTAL, 'py'),
    { a: 'total([1, 2])' },
    0,
    1,
    'no "```python" in the answer, so the split on "```" keeps the "py" line: NameError',
  ],
  [
    'blocklisted word in the prose only',
    TOTAL,
    `Run it with sudo if you like.\n${fence(TOTAL)}`,
    { a: 'total([1, 2])' },
    0,
    1,
    'the blocklist is checked over the whole answer before the fence is split',
  ],
  [
    'a value of 1,000,000 list items',
    'def big(n):\n    return list(range(n))\n',
    fence('def big(n):\n    return list(range(n))\n'),
    { a: 'big(1000000)' },
    1,
    0,
    'no size limit: the values compare in memory',
  ],
  [
    'a list nested 600 deep',
    'def deep(n):\n    v = 0\n    for _ in range(n):\n        v = [v]\n    return v\n',
    fence('def deep(n):\n    v = 0\n    for _ in range(n):\n        v = [v]\n    return v\n'),
    { a: 'deep(600)' },
    1,
    0,
    '== recurses within the default recursion limit of 1000',
  ],
];

// Titled by what, the two outcomes and why.
const READ = ROWS.map(([what, reference, answer, tests, seed, fixed, why]) => [what, seed, fixed, why, reference, answer, tests] as const);

describe('ColBench code scoring reproduces check_correctness under compat: seed (outcomes read from its code)', () => {
  it.each(READ)('%s → seed %s, fixed %s (%s)', async (_what, seed, fixed, _why, reference, answer, tests) => {
    expect(await fraction(reference, answer, tests, 'seed')).toBe(seed);
    expect(await fraction(reference, answer, tests, 'fixed')).toBe(fixed);
  });

  it('waits for a reference call of several seconds under seed (the seed never stops one); fixed stops it at 5 s', async () => {
    const reference = 'def slow(x):\n    __import__("time").sleep(6)\n    return x + 1\n';
    const answer = fence('def slow(x):\n    return x + 1\n');
    expect(await fraction(reference, answer, { a: 'slow(1)' }, 'seed')).toBe(1);
    const fixed = await scoreCodeAnswer(answer, task(reference, { a: 'slow(1)' }), runCodeTests, { compat: 'fixed', slot: 180 });
    expect(fixed).toMatchObject({ reason: 'reference_failed' });
  });
});

interface Case {
  kind: string;
  reference: string;
  answer: string;
  tests: Record<string, string>;
  seed: number;
}
const generated: Case[] = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'tests/fixtures/colbench/seed-code-verdicts.json'), 'utf8'));

/** Runs `job` over `items` two at a time (one sandbox slot each). */
async function twoAtATime<T, R>(items: T[], job: (item: T, slot: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    [180, 181].map(async (slot) => {
      while (next < items.length) {
        const i = next++;
        out[i] = await job(items[i], slot);
      }
    }),
  );
  return out;
}

describe("generated cases of those kinds against check_correctness's own outcomes", () => {
  it('agree on at least 95 % under compat: seed', { timeout: 900_000 }, async () => {
    expect(generated.length).toBe(116);
    const agreement = async (compat: Compat) => {
      const ours = await twoAtATime(generated, (c, slot) => fraction(c.reference, c.answer, c.tests, compat, slot));
      const byKind = new Map<string, [number, number]>();
      generated.forEach((c, i) => {
        const [ok, n] = byKind.get(c.kind) ?? [0, 0];
        byKind.set(c.kind, [ok + (ours[i] === c.seed ? 1 : 0), n + 1]);
      });
      const ok = [...byKind.values()].reduce((a, [k]) => a + k, 0);
      const pct = (k: number, n: number) => `${((100 * k) / n).toFixed(1)} %`;
      console.log(
        `ColBench code agreement with check_correctness, compat ${compat}: ${pct(ok, generated.length)} of ${generated.length} (${[
          ...byKind,
        ]
          .map(([kind, [k, n]]) => `${kind} ${pct(k, n)}`)
          .join(', ')})`,
      );
      return ok / generated.length;
    };
    expect(await agreement('seed')).toBeGreaterThanOrEqual(0.95);
    expect(await agreement('fixed')).toBeLessThan(0.8); // the kinds where fixed keeps its own rules
  });
});
