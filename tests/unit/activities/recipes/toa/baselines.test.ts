// The baselines' call structure (oceanypt/TOA code/ensemble_methods.py) through the one planner interface every method shares: per method, how
// many generate / refine / aggregate calls each model makes for a given N and K, and which earlier responses each
// refine or aggregate call shows.
import { describe, expect, it } from 'vitest';
import { METHODS, type PlanParams, planner } from '../../../../../activities/recipes/toa/baselines';
import type { Call, Outcome } from '../../../../../activities/recipes/toa/search';

type Env = (c: Call) => Outcome;
const textOf = (c: Call) => `${c.model}#${c.play}`;
/** Reward = the play number / 100 unless the test says otherwise. */
const rising: Env = (c) => ({ text: textOf(c), reward: c.play / 100 });

function drive(method: (typeof METHODS)[number], p: PlanParams, env: Env = rising) {
  const pl = planner(method, p);
  let s = pl.newState();
  const made: Call[] = [];
  for (let c = pl.nextPlay(s); c; c = pl.nextPlay(s)) {
    made.push(c);
    s = pl.applyPlay(s, c, env(c));
  }
  return { calls: made, state: s, results: pl.results(s), planner: pl };
}
const shape = (c: Call) => `${c.model} ${c.action}:${c.parents.join(',')}@${c.layer}`;

describe('every method behind one interface', () => {
  it('makes exactly N = samples × K calls, with a JSON state tagged with its method', () => {
    expect(METHODS).toEqual(['toa', 'random', 'prs', 'ensemble', 'sequential', 'moa']);
    for (const method of METHODS) {
      const single = method === 'random' || method === 'prs';
      const p: PlanParams = { models: single ? ['a'] : ['a', 'b', 'c'], samples: single ? 12 : 4, layers: 2 };
      const { calls, state, results, planner: pl } = drive(method, p);
      expect(pl.budget).toBe(12);
      expect(calls.map((c) => c.play)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(results.responses).toHaveLength(12);
      expect(state.method).toBe(method);
      expect(JSON.parse(JSON.stringify(state))).toEqual(state);
      expect(pl.nextPlay(state)).toBeUndefined();
    }
  });

  it("refuses another method's state, a stale call and an unknown method", () => {
    const ens = planner('ensemble', { models: ['a', 'b'], samples: 2 });
    const seq = planner('sequential', { models: ['a', 'b'], samples: 2 });
    expect(() => ens.nextPlay(seq.newState())).toThrow(/planner ensemble: given a sequential state/);
    expect(() => planner('toa', { models: ['a', 'b'], samples: 6 }).nextPlay(ens.newState())).toThrow(/planner toa/);
    const s = ens.newState();
    const c = ens.nextPlay(s)!;
    expect(() => ens.applyPlay(s, { ...c, model: 'b' }, { text: 'x', reward: 1 })).toThrow(/not the next play 1/);
    expect(() => planner('best-of' as never, { models: ['a'], samples: 1 })).toThrow(/unknown method "best-of"/);
  });

  it('toa through the factory is the search with the seed’s defaults', () => {
    const { calls, state } = drive('toa', { models: ['a', 'b'], samples: 6 });
    expect(state).toMatchObject({ method: 'toa', params: { tau: 0.1, alpha: 0.01, topK: 1, width: 4 } });
    expect(calls.slice(0, 4).every((c) => c.action === 'generate' && c.layer === 1)).toBe(true);
    expect(calls[4]).toMatchObject({ action: 'refine', layer: 2 });
  });
});

describe('random sampling and PRS (single agent)', () => {
  it('random: N fresh generations from the one model; more than one model is refused', () => {
    const { results, calls } = drive('random', { models: ['a'], samples: 5 });
    expect(calls.map(shape)).toEqual(Array(5).fill('a generate:@1'));
    expect(results.actions).toEqual({ a_generate: 5 });
    expect(() => planner('random', { models: ['a', 'b'], samples: 5 })).toThrow(/single-agent/);
    expect(() => planner('prs', { models: ['a', 'b'], samples: 5 })).toThrow(/single-agent/);
  });

  it('prs: ⌈N/2⌉ generations, then every call refines the single best of them, scored or not later', () => {
    // First half rewards 0.1, 0.5, 0.9, 0.9, 0.2: the best is play 3 (the earlier of the tie); refinements score
    // higher, but the parent stays fixed.
    const raws = [0.1, 0.5, 0.9, 0.9, 0.2, 2, 3, 4, 5, 6];
    const { calls, results } = drive('prs', { models: ['a'], samples: 10 }, (c) => ({ text: textOf(c), reward: raws[c.play - 1] }));
    expect(calls.slice(0, 5).map(shape)).toEqual(Array(5).fill('a generate:@1'));
    expect(calls.slice(5).map(shape)).toEqual(Array(5).fill('a refine:3@2'));
    expect(calls.slice(5).every((c) => c.parentText === 'a#3')).toBe(true);
    expect(results.actions).toEqual({ a_generate: 5, a_refine: 5 });

    const odd = drive('prs', { models: ['a'], samples: 7 }).calls;
    expect(odd.filter((c) => c.action === 'generate')).toHaveLength(4);
    expect(odd.slice(4).map(shape)).toEqual(Array(3).fill('a refine:4@2')); // rising rewards: play 4 is the best
  });

  it('prs: a failed reward is never the best; with nothing scored the second half generates', () => {
    const some = drive('prs', { models: ['a'], samples: 4 }, (c) =>
      c.play === 2 ? { text: textOf(c), failed: 'rm down' } : { text: textOf(c), reward: 0.1 },
    );
    expect(some.calls.slice(2).map(shape)).toEqual(['a refine:1@2', 'a refine:1@2']);
    const none = drive('prs', { models: ['a'], samples: 4 }, (c) => (c.play <= 2 ? { text: '', failed: 'generation: 500' } : rising(c)));
    expect(none.calls.map((c) => c.action)).toEqual(['generate', 'generate', 'generate', 'generate']);
  });
});

describe('parallel ensemble', () => {
  it('each of the K models makes N/K fresh generations, round-robin', () => {
    const { calls, results } = drive('ensemble', { models: ['a', 'b', 'c'], samples: 4 });
    expect(results.actions).toEqual({ a_generate: 4, b_generate: 4, c_generate: 4 });
    expect(calls.slice(0, 6).map((c) => c.model)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
    expect(calls.every((c) => c.parents.length === 0 && c.layer === 1)).toBe(true);
  });
});

describe('sequential refinement', () => {
  const p: PlanParams = { models: ['a', 'b', 'c'], samples: 4, seed: 7 };

  it('N/K chains, each a permutation of the K models: the first generates, each next refines the previous', () => {
    const { calls, results } = drive('sequential', p);
    for (let chain = 0; chain < 4; chain++) {
      const steps = calls.slice(chain * 3, chain * 3 + 3);
      expect(steps.map((c) => c.model).sort()).toEqual(['a', 'b', 'c']);
      expect(steps[0]).toMatchObject({ action: 'generate', parents: [], layer: 1 });
      expect(steps[1]).toMatchObject({ action: 'refine', parents: [steps[0].play], layer: 2, parentText: textOf(steps[0]) });
      expect(steps[2]).toMatchObject({ action: 'refine', parents: [steps[1].play], layer: 3, parentText: textOf(steps[1]) });
    }
    expect(Object.values(results.actions).reduce((a, b) => a + b, 0)).toBe(12);
    expect(calls.filter((c) => c.action === 'generate')).toHaveLength(4);
  });

  it('the permutations come from the seed alone', () => {
    const orders = (seed: number) =>
      drive('sequential', { ...p, seed })
        .calls.map((c) => c.model)
        .join('');
    expect(orders(7)).toBe(orders(7));
    expect(new Set([1, 2, 3, 4, 5, 6].map(orders)).size).toBeGreaterThan(1);
  });

  it('refines an unscored response (its text exists) but skips one with no text', () => {
    const { calls } = drive('sequential', p, (c) => {
      if (c.play === 1) return { text: textOf(c), failed: 'rm down' };
      if (c.play === 5) return { text: '', failed: 'generation: 500' };
      return rising(c);
    });
    expect(calls[1].parents).toEqual([1]);
    expect(calls[5]).toMatchObject({ action: 'refine', parents: [4], layer: 3 }); // chain 2: step 2 had no text
  });
});

describe('mixture of agents', () => {
  it('blocks of L layers: layer 1 generates, every later call aggregates the previous layer of its block', () => {
    const { calls, results } = drive('moa', { models: ['a', 'b'], samples: 6, layers: 3 });
    expect(calls.map(shape)).toEqual([
      'a generate:@1',
      'b generate:@1',
      'a aggregate:1,2@2',
      'b aggregate:1,2@2',
      'a aggregate:3,4@3',
      'b aggregate:3,4@3',
      'a generate:@1',
      'b generate:@1',
      'a aggregate:7,8@2',
      'b aggregate:7,8@2',
      'a aggregate:9,10@3',
      'b aggregate:9,10@3',
    ]);
    expect(calls[4].parentTexts).toEqual(['a#3', 'b#4']);
    expect(results.actions).toEqual({ a_generate: 2, b_generate: 2, a_aggregate: 4, b_aggregate: 4 });
  });

  it('defaults to 4 layers, cuts the last block short to keep N, and leaves out responses with no text', () => {
    const four = drive('moa', { models: ['a', 'b'], samples: 6 }, (c) =>
      c.play === 2 ? { text: '', failed: 'generation: 500' } : rising(c),
    );
    expect(four.calls.map(shape)).toEqual([
      'a generate:@1',
      'b generate:@1',
      'a aggregate:1@2',
      'b aggregate:1@2',
      'a aggregate:3,4@3',
      'b aggregate:3,4@3',
      'a aggregate:5,6@4',
      'b aggregate:5,6@4',
      'a generate:@1',
      'b generate:@1',
      'a aggregate:9,10@2',
      'b aggregate:9,10@2',
    ]);
    expect(() => planner('moa', { models: ['a'], samples: 4, layers: 0 })).toThrow(/layers must be a positive integer/);
  });
});
