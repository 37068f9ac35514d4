// TOA's MCTS (activities/recipes/toa/search.ts) driven by tiny fake environments: scripted rewards per play for the
// hand-checked scenarios, a hashed reward of (model, text) for whole runs. Every expected call below was worked out
// by hand from the rules of oceanypt/TOA code/ensemble_methods.py (MCTS_thread).
import { describe, expect, it } from 'vitest';
import {
  applyPlay,
  type ModelNode,
  newSearch,
  nextPlay,
  normalizeReward,
  type Outcome,
  type ResponseNode,
  type SearchCall,
  type SearchParams,
  type SearchState,
  searchResults,
} from '../../../../../activities/recipes/toa/search';

type Env = (c: SearchCall) => Outcome;

function run(p: SearchParams, env: Env, s: SearchState = newSearch(p), until = Number.POSITIVE_INFINITY): SearchState {
  for (;;) {
    const c = nextPlay(s, p);
    if (!c || s.plays >= until) return s;
    s = applyPlay(s, p, c, env(c));
  }
}

/** Rewards by play number; 'fail' = the RM could not score it. */
const scripted =
  (raws: Array<number | 'fail'>): Env =>
  (c) => {
    const raw = raws[c.play - 1];
    const text = `${c.model}#${c.play}`;
    return raw === 'fail' ? { text, failed: 'rm: gave up after retries' } : { text, reward: raw };
  };

const fnv = (t: string) => {
  let x = 2166136261;
  for (const ch of t) x = Math.imul(x ^ ch.charCodeAt(0), 16777619) >>> 0;
  return x;
};
const textOf = (c: SearchCall) => `${c.model}|${c.action}|${c.parents.join(',')}|${c.play}`;
/** A deterministic reward as a function of model and text, ArmoRM-like range (≈0–0.2). */
const hashed: Env = (c) => {
  const text = textOf(c);
  return { text, reward: ({ a: 0.05, b: 0.1, c: 0.08 }[c.model] ?? 0) + (fnv(text) % 100) / 1000 };
};

/** The calls a run made, in order, as `action:parents@layer`. */
function calls(p: SearchParams, env: Env, n: number): string[] {
  const out: string[] = [];
  let s = newSearch(p);
  for (let i = 0; i < n; i++) {
    const c = nextPlay(s, p)!;
    out.push(`${c.model} ${c.action}:${c.parents.join(',')}@${c.layer}`);
    s = applyPlay(s, p, c, env(c));
  }
  return out;
}

const rootArms = (s: SearchState) => s.nodes[0].children.map((id) => s.nodes[id] as ModelNode);
const responses = (s: SearchState) => s.nodes.filter((n): n is ResponseNode => n.kind === 'response');

describe('selection by UCB', () => {
  const p: SearchParams = { models: ['a', 'b'], samples: 100, tau: 1, alpha: 1, topK: 1 };

  it('uses the GLOBAL play counter, not the parent visit count', () => {
    const s = newSearch(p);
    const [a, b] = rootArms(s);
    Object.assign(a, { visits: 2, rewards: [0.6] });
    Object.assign(b, { visits: 20, rewards: Array(19).fill(0.61) });
    // t = 1: ln 1 = 0, pure exploitation → b (0.61 > 0.6).
    expect(nextPlay(s, p)!.model).toBe('b');
    // t = 100 with the root's visits still 1: a = 0.6 + √(2·ln100/2) ≈ 2.75 beats b = 0.61 + √(2·ln100/20) ≈ 1.29.
    s.plays = 99;
    expect(s.nodes[0].visits).toBe(1);
    expect(nextPlay(s, p)).toMatchObject({ play: 100, model: 'a', action: 'generate', layer: 1, parents: [] });
  });

  it('scores a never-played child +∞ and breaks ties by child order', () => {
    const s = newSearch(p);
    const [a, b] = rootArms(s);
    Object.assign(a, { visits: 3, rewards: [0.99, 0.99] });
    expect(nextPlay(s, p)!.model).toBe('b'); // b: visits 1, no rewards → +∞
    Object.assign(b, { visits: 3, rewards: [0.99, 0.99] });
    expect(nextPlay(s, p)!.model).toBe('a'); // equal scores → first child
    s.nodes[0].children.reverse();
    expect(nextPlay(s, p)!.model).toBe('b'); // the order of children decides, not the id or the name
  });

  it('tries every agent once, in model order, before any comparison', () => {
    const q = { ...p, models: ['c', 'a', 'b'] };
    expect(calls(q, hashed, 3).map((c) => c.split(' ')[0])).toEqual(['c', 'a', 'b']);
  });
});

describe('the tree policy', () => {
  it('fills the first response layer up to width = ⌊N/3⌋ with fresh generations, then refines', () => {
    const p: SearchParams = { models: ['a', 'b'], samples: 6, tau: 0.1, alpha: 0.01, topK: 1 };
    expect(newSearch(p).params.width).toBe(4);
    const made = calls(p, hashed, 6);
    expect(made.slice(0, 2)).toEqual(['a generate:@1', 'b generate:@1']);
    expect(made.slice(0, 4).every((c) => c.endsWith('generate:@1'))).toBe(true);
    expect(made[4]).toMatch(/ refine:\d@2$/);
    expect(calls({ ...p, width: 2 }, hashed, 3)[2]).toMatch(/ refine:\d@2$/);
    expect(() => newSearch({ ...p, models: ['a', 'b', 'c'], samples: 2 })).toThrow(/width 2 must be an integer ≥ K = 3/);
  });

  it('descends greedily into the best response (topK = 1); topK = 2 runs UCB among the two best', () => {
    // v = sigmoid(raw): 0.27, 0.88, 0.73, then 0.95 for the first refinement.
    const p: SearchParams = { models: ['a'], samples: 10, tau: 1, alpha: 0.01, topK: 1, width: 3 };
    const env = scripted([-1, 2, 1, 3, 0, 0]);
    expect(calls(p, env, 5)).toEqual(['a generate:@1', 'a generate:@1', 'a generate:@1', 'a refine:2@2', 'a refine:2@2']);
    // topK = 2: play 2's response has been visited, play 3's has not (+∞); play 1's is never a candidate.
    expect(calls({ ...p, topK: 2 }, env, 5).slice(3)).toEqual(['a refine:2@2', 'a refine:3@2']);
  });

  it('keeps re-trying a refinement until it beats its parent, then goes one layer deeper', () => {
    // K = 1, width 3, alpha 0 (pure exploitation). Plays 1–3 generate (v 0.05, 0.5, 0.05): play 2's is best.
    // Plays 4–6 refine it while layer 2 is not full (rule a); play 7 still refines it because no refinement beat
    // it yet (rule b); a refinement that wins is refined in turn.
    const p: SearchParams = { models: ['a'], samples: 10, tau: 1, alpha: 0, topK: 1, width: 3 };
    const prefix = [-3, 0, -3, -0.5, -0.4, -0.3];
    expect(calls(p, scripted([...prefix, 0.5, 0]), 8).slice(3)).toEqual([
      'a refine:2@2',
      'a refine:2@2',
      'a refine:2@2',
      'a refine:2@2',
      'a refine:7@3',
    ]);
    expect(calls(p, scripted([...prefix, -0.2, 0]), 8)[7]).toBe('a refine:2@2');
  });

  it('gives a response its generate arms on the first pass, with the root arm’s statistics as prior', () => {
    // K = 1, width 1, alpha 0. Play 1 generates R1 (v 0.5). Play 2 passes through R1 for the first time: R1 gets a
    // generate arm copying the root arm (visits 2, rewards [0.5]) and its +∞ refine arm is expanded (v 0.27). Play 3:
    // generate arm (Q 0.5) beats refine arm (Q 0.27); layer 2 is full but nothing there beats R1 → fresh generation.
    const p: SearchParams = { models: ['a'], samples: 10, tau: 1, alpha: 0, topK: 1, width: 1 };
    const env = scripted([0, -1, -2, 1, 0]);
    expect(calls(p, env, 5)).toEqual(['a generate:@1', 'a refine:1@2', 'a generate:@2', 'a generate:@2', 'a refine:4@3']);

    const before = run(p, env, newSearch(p), 1);
    const c = nextPlay(before, p)!;
    expect(JSON.stringify(before)).toBe(JSON.stringify(run(p, env, newSearch(p), 1))); // nextPlay added nothing
    const after = applyPlay(before, p, c, env(c));
    const r1 = responses(after)[0];
    const generateArm = r1.children.map((id) => after.nodes[id] as ModelNode).find((m) => m.action === 'generate')!;
    expect(generateArm).toMatchObject({ model: 'a', visits: 2, rewards: [0.5], failures: 0, children: [] });
    expect(rootArms(after)[0]).toMatchObject({ visits: 3, rewards: [0.5, normalizeReward(-1, 1)] });
  });

  it('copies each model’s own root arm, snapshotted before the play’s backup (whole run, K = 3)', () => {
    const p: SearchParams = { models: ['a', 'b', 'c'], samples: 10, tau: 0.1, alpha: 0.01, topK: 1 };
    let s = newSearch(p);
    let copies = 0;
    for (let c = nextPlay(s, p); c; c = nextPlay(s, p)) {
      const prior = new Map(rootArms(s).map((m) => [m.model, { visits: m.visits, rewards: m.rewards, failures: m.failures }]));
      const next = applyPlay(s, p, c, hashed(c));
      for (const n of next.nodes.slice(s.nodes.length)) {
        if (n.kind !== 'model' || n.action !== 'generate') continue;
        copies++;
        const { visits, rewards, failures } = prior.get(n.model)!;
        expect(next.nodes[n.parent].kind).toBe('response');
        if (n.id === c.modelNode) expect(n).toMatchObject({ visits: visits + 1, rewards: [...rewards, expect.any(Number)] });
        else expect(n).toMatchObject({ visits, rewards, failures });
      }
      s = next;
    }
    expect(copies % 3).toBe(0);
    expect(copies).toBeGreaterThanOrEqual(6);
    // Every response node selection passed through has 2K arms: K refine (created with it) then K generate.
    for (const r of responses(s).filter((r) => r.generateArms)) {
      const arms = r.children.map((id) => s.nodes[id] as ModelNode);
      expect(arms.map((m) => `${m.model}_${m.action}`)).toEqual([
        'a_refine',
        'b_refine',
        'c_refine',
        'a_generate',
        'b_generate',
        'c_generate',
      ]);
    }
  });
});

describe('evaluation and backup', () => {
  it('normalises v = sigmoid(raw / tau) and backs it up from the expanded MODEL node to the root', () => {
    const p: SearchParams = { models: ['a'], samples: 10, tau: 1, alpha: 0.01, topK: 1, width: 3 };
    const env = scripted([-1, 2, 1, -0.5]);
    const before = run(p, env, newSearch(p), 3);
    const c = nextPlay(before, p)!; // refine play 2's response
    expect(c).toMatchObject({ play: 4, action: 'refine', parents: [2], parentText: 'a#2' });
    const after = applyPlay(before, p, c, env(c));
    const v = 1 / (1 + Math.exp(0.5));
    const created = after.nodes[after.nodes.length - 2]; // the new response; its one refine arm follows it
    expect(created).toMatchObject({ kind: 'response', play: 4, parent: c.modelNode, reward: -0.5, v, visits: 1, rewards: [] });

    const path: number[] = [];
    for (let id = c.modelNode; id >= 0; id = after.nodes[id].parent) path.push(id);
    expect(path.map((id) => after.nodes[id].kind)).toEqual(['model', 'response', 'model', 'root']);
    for (const id of path) {
      const was = before.nodes[id] ?? after.nodes[id]; // the refine arm existed; nothing on the path is new
      expect(after.nodes[id].visits).toBe(was.visits + 1);
      expect(after.nodes[id].rewards).toEqual([...was.rewards, v]);
    }
    // Everything else that existed is untouched apart from the first-pass flag and arm list of play 2's response.
    const r2 = after.nodes[path[1]] as ResponseNode;
    for (const n of before.nodes) if (!path.includes(n.id) && n.id !== r2.id) expect(after.nodes[n.id]).toEqual(n);
    expect(normalizeReward(0.05, 0.1)).toBeCloseTo(0.6224593312, 10);
  });
});

describe('determinism and checkpoints', () => {
  const p: SearchParams = { models: ['a', 'b', 'c'], samples: 8, tau: 0.1, alpha: 0.01, topK: 1 };

  it('the same responses and rewards give the identical tree, and nextPlay is pure', () => {
    const one = run(p, hashed);
    expect(run(p, hashed)).toEqual(one);
    expect(one.plays).toBe(24);
    const mid = run(p, hashed, newSearch(p), 10);
    const frozen = JSON.stringify(mid);
    expect(nextPlay(mid, p)).toEqual(nextPlay(mid, p));
    applyPlay(mid, p, nextPlay(mid, p)!, hashed(nextPlay(mid, p)!));
    expect(JSON.stringify(mid)).toBe(frozen);
  });

  it('a search resumed from a JSON checkpoint after any play ends with the uninterrupted tree', () => {
    const whole = JSON.stringify(run(p, hashed));
    for (let cut = 0; cut <= 24; cut++) {
      const partial = run(p, hashed, newSearch(p), cut);
      const restored = JSON.parse(JSON.stringify(partial)) as SearchState;
      expect(restored).toEqual(partial);
      expect(JSON.stringify(run(p, hashed, restored))).toBe(whole);
    }
  });

  it('refuses a stale call, a call after the end, changed parameters and a non-number reward', () => {
    const s = run(p, hashed, newSearch(p), 5);
    const c = nextPlay(s, p)!;
    expect(() => applyPlay(s, p, { ...c, play: 5 }, { text: 'x', reward: 0 })).toThrow(/not the next play 6/);
    expect(() => applyPlay(s, p, { ...c, modelNode: c.modelNode + 1 } as SearchCall, { text: 'x', reward: 0 })).toThrow(
      /not the next play/,
    );
    expect(() => applyPlay(s, p, c, { text: 'x', reward: Number.NaN })).toThrow(/not a number/);
    expect(() => nextPlay(s, { ...p, alpha: 0.02 })).toThrow(/built with/);
    const done = run(p, hashed);
    expect(nextPlay(done, p)).toBeUndefined();
    expect(() => applyPlay(done, p, c, { text: 'x', reward: 0 })).toThrow(/all 24 plays are done/);
  });
});

describe('failed plays', () => {
  const p: SearchParams = { models: ['a', 'b', 'c'], samples: 8, tau: 0.1, alpha: 0.01, topK: 1 };

  it('are recorded as failed, never as 0, and the search still makes exactly N plays', () => {
    const env: Env = (c) => {
      const text = textOf(c);
      if (c.model === 'b' && c.play % 3 === 0) return { text: '', failed: 'generation: server error' };
      return fnv(text) % 4 === 0 ? { text, failed: 'rm: gave up' } : hashed(c);
    };
    const s = run(p, env);
    const all = responses(s);
    const failed = all.filter((r) => r.failed);
    expect(s.plays).toBe(24);
    expect(nextPlay(s, p)).toBeUndefined();
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(failed.some((r) => r.text === '')).toBe(true);
    for (const r of failed) {
      expect(r.reward).toBeUndefined();
      expect(r.v).toBeUndefined();
      expect(r.children).toEqual([]); // nothing to refine
    }
    // The root saw every play but only the real rewards.
    const scored = all.filter((r) => r.v !== undefined);
    expect(s.nodes[0].visits).toBe(25);
    expect([...s.nodes[0].rewards].sort()).toEqual(scored.map((r) => r.v!).sort());
    expect(s.nodes.every((n) => n.rewards.every((v) => v > 0))).toBe(true);

    const res = searchResults(s, 3);
    expect(res.responses).toHaveLength(24);
    expect(res.failed).toBe(failed.length);
    expect(res.responses.filter((r) => r.failed).map((r) => r.play)).toEqual(failed.map((r) => r.play).sort((x, y) => x - y));
    expect(res.meanReward).toBeCloseTo(scored.reduce((a, r) => a + r.reward!, 0) / scored.length, 12);
    expect(res.best!.failed).toBeUndefined();
  });

  it('an agent that stops answering cannot absorb the budget', () => {
    // b is dead from the start; c scores best on its first call and then its server dies.
    const q = { ...p, samples: 20 };
    const s = run(q, (c) => {
      if (c.model === 'b' || (c.model === 'c' && c.play > 3)) return { text: '', failed: 'generation: connection refused' };
      return c.model === 'c' ? { text: textOf(c), reward: 0.3 } : hashed(c);
    });
    const res = searchResults(s);
    expect(res.responses).toHaveLength(60);
    const byModel = (m: string) => res.responses.filter((r) => r.model === m).length;
    // Each fresh arm is still tried once (+∞), but no agent keeps winning on failures.
    expect(byModel('a')).toBeGreaterThan(45);
    expect(byModel('b') + byModel('c')).toBeLessThan(15);
    expect(res.bestModel).toBe('c'); // its one real answer still counts
  });
});

describe('results', () => {
  it('lists every response with its label, the best, the top-k mean and the action histogram', () => {
    const p: SearchParams = { models: ['a'], samples: 10, tau: 1, alpha: 0, topK: 1, width: 3 };
    const s = run(p, scripted([-3, 0, -3, -0.5, -0.4, -0.3, 0.5, 'fail', 0.2, 0.1]));
    const res = searchResults(s, 3);
    expect(res.responses.map((r) => r.label)).toEqual([
      'a_layer_1',
      'a_layer_1',
      'a_layer_1',
      'a_layer_2',
      'a_layer_2',
      'a_layer_2',
      'a_layer_2',
      'a_layer_3',
      'a_layer_3',
      'a_layer_3',
    ]);
    expect(res.responses[7]).toMatchObject({ play: 8, action: 'refine', parents: [7], failed: 'rm: gave up after retries' });
    // After its failure the refine arm of play 7 (Q 0: no real reward) loses to the generate arm under play 7.
    expect(res.responses[8]).toMatchObject({ play: 9, action: 'generate', parents: [], layer: 3, reward: 0.2 });
    expect(res.best).toMatchObject({ play: 7, reward: 0.5, v: normalizeReward(0.5, 1), text: 'a#7' });
    expect(res.bestModel).toBe('a');
    expect(res.topK).toEqual({ k: 3, mean: (0.5 + 0.2 + 0.1) / 3 });
    expect(res.actions).toEqual({ a_generate: 5, a_refine: 5 });
    expect(res.failed).toBe(1);
  });
});
