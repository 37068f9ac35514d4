// The paper's baselines at TOA's budget of N calls per prompt (arXiv 2412.17061 §4; oceanypt/TOA generate modes
// ensemble_sample_N, PRS, ensemble_Seq, ensemble_MoA; code/ensemble_methods.py sample_N_thread, PRS_thread,
// Seq_thread, MoA_thread), as planners with the search's interface, and
// `planner(method, params)`: the one place that maps a method name to its planner, so an executor never switches on it.
//
//   random      one model, N fresh generations (K must be 1)
//   prs         one model: ⌈N/2⌉ fresh generations, then the rest all refine the single best of those (the repo's
//               2-layer simplification of Ye & Ng 2024; the best is fixed once the first half is scored)
//   ensemble    each of the K models makes N/K fresh generations, round-robin (the seed shuffles the order; the
//               pool is the same, and round-robin keeps every prefix balanced without a seed)
//   sequential  N/K chains; each chain is a seeded permutation of the K models, the first generates and each next
//               refines the previous step's response; every step is kept
//   moa         blocks of L layers × K models: layer 1 generates, every call of layer ℓ > 1 aggregates all K layer
//               ℓ−1 responses of its block (num_aggregation = K, so all of them, in model order; the seed shuffles only
//               when it keeps fewer); all K·L outputs kept. N/(K·L) blocks; when K·L does not divide N the last block
//               stops early, so the budget is still exactly N.
// An aggregation call is action 'aggregate' with parentTexts (the seed's MoA prompt: aggregator system prompt with
// every response listed, user = the original question).
//
// Failures (see search.ts Outcome): the baselines that do not read rewards (sequential, moa) still use a response
// whose reward failed, since its text exists; a response with no text is skipped — sequential refines the chain's
// latest response with text, moa aggregates the ones with text — and with none left the call generates instead.
// PRS ranks only scored responses; if none of the first half was scored, the second half generates.
//
// Determinism: the only randomness is sequential's permutations, drawn from `seed` once in newState and stored in
// the state; nextPlay is then a pure function of the state. Pass a per-prompt seed (e.g. hashSeed(runSeed, promptId)).
import { seededRandom, shuffled } from '../../seeded-random';
import {
  DEFAULT_SEARCH,
  type Call,
  type Outcome,
  type Planner,
  type ResponseRecord,
  type SearchParams,
  type SearchState,
  checkOutcome,
  layerLabel,
  searchBudget,
  summarize,
  toaPlanner,
} from './search';

export const METHODS = ['toa', 'random', 'prs', 'ensemble', 'sequential', 'moa'] as const;
export type Method = (typeof METHODS)[number];
export type BaselineMethod = Exclude<Method, 'toa'>;

/** MoA's n_iter in every script. */
export const DEFAULT_MOA_LAYERS = 4;

/** Every method's parameters; the search ones default to DEFAULT_SEARCH, the rest are ignored where unused. */
export type PlanParams = Pick<SearchParams, 'models' | 'samples'> &
  Partial<Pick<SearchParams, 'tau' | 'alpha' | 'topK' | 'width'>> & {
    /** moa: layers per block (default 4). */
    layers?: number;
    /** sequential: seed of the chains' model permutations (default 0). */
    seed?: number;
  };

export interface BaselineState {
  method: BaselineMethod;
  models: string[];
  /** N = samples × K. */
  budget: number;
  /** moa only. */
  layers?: number;
  /** sequential only: chain c calls models[orders[c][0]], models[orders[c][1]], … */
  orders?: number[][];
  /** One record per completed play, in play order. */
  responses: ResponseRecord[];
}

export type PlanState = SearchState | BaselineState;

/** A call without its texts: which model, which shape, which earlier plays it shows. */
type Step = Pick<Call, 'model' | 'action' | 'layer' | 'parents'>;

const generate = (model: string, layer = 1): Step => ({ model, action: 'generate', layer, parents: [] });
const hasText = (r: ResponseRecord | undefined) => r !== undefined && r.text !== '';

/** Per method: the step of play index i (0-based), given the responses of plays 1..i. */
const STEPS: Record<BaselineMethod, (s: BaselineState, i: number) => Step> = {
  random: (s) => generate(s.models[0]),
  ensemble: (s, i) => generate(s.models[i % s.models.length]),
  prs: (s, i) => {
    const fresh = Math.ceil(s.budget / 2);
    if (i < fresh) return generate(s.models[0]);
    let best: ResponseRecord | undefined;
    for (const r of s.responses.slice(0, fresh)) if (r.reward !== undefined && (!best || r.reward > best.reward!)) best = r;
    return best ? { model: s.models[0], action: 'refine', layer: 2, parents: [best.play] } : generate(s.models[0]);
  },
  sequential: (s, i) => {
    const k = s.models.length;
    const chain = Math.floor(i / k);
    const step = i % k;
    const model = s.models[s.orders![chain][step]];
    // The chain's earlier steps are plays chain·K+1 … i (1-based); refine the latest one with text.
    for (let j = i - 1; j >= chain * k; j--)
      if (hasText(s.responses[j])) return { model, action: 'refine', layer: step + 1, parents: [j + 1] };
    return generate(model, step + 1);
  },
  moa: (s, i) => {
    const k = s.models.length;
    const block = k * s.layers!;
    const layer = Math.floor((i % block) / k);
    const model = s.models[i % k];
    if (layer === 0) return generate(model);
    const previousStart = i - (i % block) + (layer - 1) * k; // 0-based index of the previous layer's first call
    const parents: number[] = [];
    for (let j = previousStart; j < previousStart + k; j++) if (hasText(s.responses[j])) parents.push(j + 1);
    return parents.length ? { model, action: 'aggregate', layer: layer + 1, parents } : generate(model, layer + 1);
  },
};

function newBaseline(method: BaselineMethod, p: PlanParams): BaselineState {
  const k = p.models.length;
  if (k === 0) throw new Error(`${method}: no models`);
  if (new Set(p.models).size !== k) throw new Error(`${method}: model names must be distinct, got ${p.models.join(', ')}`);
  if (!Number.isInteger(p.samples) || p.samples < 1) throw new Error(`${method}: samples must be a positive integer, got ${p.samples}`);
  if ((method === 'random' || method === 'prs') && k !== 1)
    throw new Error(`${method} is single-agent: give exactly one model (run it once per model to compare), got ${k}`);
  const s: BaselineState = { method, models: [...p.models], budget: searchBudget(p), responses: [] };
  if (method === 'moa') {
    const layers = p.layers ?? DEFAULT_MOA_LAYERS;
    if (!Number.isInteger(layers) || layers < 1) throw new Error(`moa: layers must be a positive integer, got ${layers}`);
    s.layers = layers;
  }
  if (method === 'sequential') {
    const rand = seededRandom(p.seed ?? 0);
    const identity = p.models.map((_, j) => j);
    s.orders = Array.from({ length: p.samples }, () => shuffled(identity, rand));
  }
  return s;
}

function baselineNext(s: BaselineState): Call | undefined {
  const i = s.responses.length;
  if (i >= s.budget) return undefined;
  const step = STEPS[s.method](s, i);
  const call: Call = { play: i + 1, ...step };
  const text = (play: number) => s.responses[play - 1].text;
  if (step.action === 'refine') call.parentText = text(step.parents[0]);
  if (step.action === 'aggregate') call.parentTexts = step.parents.map(text);
  return call;
}

const sameCall = (a: Call, b: Call) =>
  a.play === b.play &&
  a.model === b.model &&
  a.action === b.action &&
  a.parents.length === b.parents.length &&
  a.parents.every((x, j) => x === b.parents[j]);

function baselineApply(s: BaselineState, call: Call, outcome: Outcome): BaselineState {
  checkOutcome(outcome);
  const expected = baselineNext(s);
  if (!expected) throw new Error(`${s.method}: all ${s.budget} plays are done; nothing to apply play ${call.play} to`);
  if (!sameCall(call, expected))
    throw new Error(
      `${s.method}: play ${call.play} (${call.model} ${call.action}) is not the next play ${expected.play} (${expected.model} ${expected.action})`,
    );
  const rec: ResponseRecord = {
    play: expected.play,
    model: expected.model,
    action: expected.action,
    layer: expected.layer,
    label: layerLabel(expected.model, expected.layer),
    parents: expected.parents,
    text: outcome.text,
  };
  if ('failed' in outcome) rec.failed = outcome.failed;
  else rec.reward = outcome.reward + 0; // + 0: a -0 would not survive JSON.
  if (outcome.usage) rec.usage = outcome.usage;
  return { ...s, responses: [...s.responses, rec] };
}

function checkMethod<S extends PlanState>(s: PlanState, method: Method): S {
  if (s.method !== method) throw new Error(`planner ${method}: given a ${s.method} state`);
  return s as S;
}

/** The planner of one method; every state it makes or takes is tagged with the method and checked. */
export function planner(method: Method, p: PlanParams): Planner<PlanState> {
  if (!METHODS.includes(method)) throw new Error(`unknown method "${method}" (one of ${METHODS.join(', ')})`);
  if (method === 'toa') {
    // Field by field: an explicit `tau: undefined` must fall back to the default too.
    const toa = toaPlanner({
      models: p.models,
      samples: p.samples,
      tau: p.tau ?? DEFAULT_SEARCH.tau,
      alpha: p.alpha ?? DEFAULT_SEARCH.alpha,
      topK: p.topK ?? DEFAULT_SEARCH.topK,
      ...(p.width === undefined ? {} : { width: p.width }),
    });
    return {
      budget: toa.budget,
      newState: toa.newState,
      nextPlay: (s) => toa.nextPlay(checkMethod(s, method)),
      applyPlay: (s, call, outcome) => toa.applyPlay(checkMethod(s, method), call, outcome),
      results: (s, k) => toa.results(checkMethod(s, method), k),
    };
  }
  const first = newBaseline(method, p); // validates the parameters now, not at the first play
  return {
    budget: first.budget,
    newState: () => newBaseline(method, p),
    nextPlay: (s) => baselineNext(checkMethod(s, method)),
    applyPlay: (s, call, outcome) => baselineApply(checkMethod(s, method), call, outcome),
    results: (s, k) => summarize(checkMethod<BaselineState>(s, method).responses, k),
  };
}
