// ★ TOA's MCTS (Tree-search Orchestrated Agents, arXiv 2412.17061 §3; as implemented in oceanypt/TOA
// code/ensemble_methods.py MCTS_thread, MCTS_Selection, MCTS_Backup) as a pure, deterministic, serializable state machine: no I/O, no clock, no randomness (ties go to the first
// child, so no seed is needed). The orchestrator loops  call = nextPlay(s) → LLM call → RM call →
// s = applyPlay(s, call, outcome)  and may checkpoint `s` (plain JSON) after every play; a killed search resumes from
// its last completed play and ends with the same tree as an uninterrupted one.
//
// The tree alternates node kinds: root (depth 0, the question) → model nodes (odd depths: "which agent acts, and how")
// → response nodes (even depths: one response and its normalised reward). The root has K "generate" arms; every
// response R gets K "refine R" arms when created, and K "generate" arms — with statistics copied from the root's arm
// of the same model, a prior — the first time selection passes through R.
//
// Purity: nextPlay never mutates its input (calling it twice gives the same call); applyPlay returns a new state and
// never mutates its input either. Both re-run the same selection on a copy, so the call applyPlay is given must be
// the one nextPlay returned for that state (checked: a stale or foreign call throws).
//
// Also here, because every method shares them (baselines.ts imports them; nothing here imports baselines.ts): the
// call / outcome / record / results shapes and the Planner interface one executor drives all methods through.
import type { TokenUsage } from '../../llm/types';
import { meanOf } from '../shared/mean';

// ---------------------------------------------------------------- shared by every method

/** A call's shape (arXiv 2412.17061 §3, the generate and refine modules; MoA's aggregation): question only, question + one earlier response, or question + several (MoA). */
export type Action = 'generate' | 'refine' | 'aggregate';

/** One planned LLM call; its response is scored by the RM against the original question, never the refine prompt. */
export interface Call {
  /** 1-based index of this call in the prompt's budget. */
  play: number;
  model: string;
  action: Action;
  /** 1-based generation layer (TOA: response depth / 2); the record's label is `<model>_layer_<layer>`. */
  layer: number;
  /** The plays whose responses the prompt shows (refine: one, aggregate: several, generate: none). */
  parents: number[];
  /** refine: the response to improve. */
  parentText?: string;
  /** aggregate: the responses to synthesise, in `parents` order. */
  parentTexts?: string[];
}

/**
 * What the executor observed. A reward the RM could not produce after its retries, or a generation that produced no
 * text (`text: ''`), is `failed` — never a reward of 0 (the seed turns RM errors into 0.0; we do not).
 */
export type Outcome = { text: string; reward: number; usage?: TokenUsage } | { text: string; failed: string; usage?: TokenUsage };

/** One response of the pool, as recorded (the per-response fields MCTS_thread writes, oceanypt/TOA code/ensemble_methods.py). */
export interface ResponseRecord {
  play: number;
  model: string;
  action: Action;
  layer: number;
  /** `<model>_layer_<layer>`, the seed's action label. */
  label: string;
  parents: number[];
  text: string;
  /** Raw RM score; absent when failed. */
  reward?: number;
  failed?: string;
  /** TOA only: the normalised reward sigmoid(reward / tau) the search used. */
  v?: number;
  usage?: TokenUsage;
}

/** The per-prompt diagnostics of the paper's tables (arXiv 2412.17061 §4). Failed responses are counted but never ranked. */
export interface Results {
  /** Every response, in play order. */
  responses: ResponseRecord[];
  /** Highest raw reward; ties → the earliest play. Undefined when nothing was scored. */
  best?: ResponseRecord;
  bestModel?: string;
  /** Mean raw reward of the k best (fewer when fewer were scored). */
  topK: { k: number; mean?: number };
  meanReward?: number;
  failed: number;
  /** Calls per `<model>_<action>`, failed ones included (they were spent). */
  actions: Record<string, number>;
}

/** What one executor needs to drive any method (baselines.ts `planner` builds these). States are plain JSON. */
export interface Planner<S> {
  /** N: the number of calls the method makes per prompt. */
  budget: number;
  newState(): S;
  /** The next call, or undefined when all N are done. Pure. */
  nextPlay(s: S): Call | undefined;
  /** A new state with the call's outcome recorded. Throws unless `call` is what nextPlay(s) returns. */
  applyPlay(s: S, call: Call, outcome: Outcome): S;
  results(s: S, k?: number): Results;
}

export const layerLabel = (model: string, layer: number) => `${model}_layer_${layer}`;
export const actionLabel = (model: string, action: Action) => `${model}_${action}`;

/** The paper's scaling plot reports the mean of the top 10 (arXiv 2412.17061 §4; oceanypt/TOA figures/scaling_alpaca_eval.png). */
export const DEFAULT_TOP_K = 10;

export function checkOutcome(o: Outcome): void {
  if ('reward' in o && !Number.isFinite(o.reward))
    throw new Error(`toa: reward ${o.reward} is not a number (a reward the RM could not produce is { failed }, not a number)`);
}

export function summarize(responses: readonly ResponseRecord[], k = DEFAULT_TOP_K): Results {
  if (!Number.isInteger(k) || k < 1) throw new Error(`toa: top-k must be a positive integer, got ${k}`);
  const scored = responses.filter((r) => r.reward !== undefined);
  let best: ResponseRecord | undefined;
  for (const r of scored) if (!best || r.reward! > best.reward!) best = r;
  const rewards = scored.map((r) => r.reward!);
  const actions: Record<string, number> = {};
  for (const r of responses) actions[actionLabel(r.model, r.action)] = (actions[actionLabel(r.model, r.action)] ?? 0) + 1;
  return {
    responses: [...responses],
    best,
    bestModel: best?.model,
    topK: { k, mean: meanOf([...rewards].sort((a, b) => b - a).slice(0, k)) },
    meanReward: meanOf(rewards),
    failed: responses.length - scored.length,
    actions,
  };
}

// ---------------------------------------------------------------- the search

export interface SearchParams {
  /** The K agents, in order (the order of arms, hence of ties). Names must be distinct. */
  models: string[];
  /** n_samples: N = samples × K plays per prompt. */
  samples: number;
  /** Reward temperature: v = sigmoid(raw / tau). 0.1 for ArmoRM scores (≈0–0.2), 1 for KIWI (the tau of oceanypt/TOA bash/exp_alpaca_eval and bash/exp_nmt run_generate.api.mcts.pre_load.sh). */
  tau: number;
  /** UCB exploration weight (0.01 in every AlpacaEval / UltraFeedback script; 0.05 for WMT). */
  alpha: number;
  /** topk_child: a model node's response children considered by UCB (1 ⇒ greedy). */
  topK: number;
  /** Global width of every response layer; default ⌊N/3⌋, must be ≥ K (the seed asserts it). */
  width?: number;
}

export const DEFAULT_SEARCH: Pick<SearchParams, 'tau' | 'alpha' | 'topK'> = { tau: 0.1, alpha: 0.01, topK: 1 };

type Resolved = Required<SearchParams>;

interface NodeBase {
  id: number;
  /** -1 for the root. */
  parent: number;
  depth: number;
  children: number[];
  /** Plays that passed through this node, starting at 1 (not 0) as in the seed. */
  visits: number;
  /** Backed-up normalised rewards of its scored plays; Q = their mean. */
  rewards: number[];
}
export interface RootNode extends NodeBase {
  kind: 'root';
}
export interface ModelNode extends NodeBase {
  kind: 'model';
  model: string;
  action: 'generate' | 'refine';
  /** refine arms: the response node they improve (always their parent). */
  refineOf?: number;
  /** Its own calls that failed (no reward): see q(). */
  failures: number;
}
export interface ResponseNode extends NodeBase {
  kind: 'response';
  /** The play that produced it. */
  play: number;
  text: string;
  reward?: number;
  failed?: string;
  /** Stored reward sigmoid(reward / tau); absent when failed. */
  v?: number;
  usage?: TokenUsage;
  /** Whether selection has passed through it (and so given it its K generate arms). */
  generateArms: boolean;
}
export type SearchNode = RootNode | ModelNode | ResponseNode;

export interface SearchState {
  method: 'toa';
  /** The parameters it was built with; driving it with others throws (a resumed search must not change shape). */
  params: Resolved;
  /** Completed plays; the next play's 1-based index is plays + 1. */
  plays: number;
  /** Node i has id i; node 0 is the root. */
  nodes: SearchNode[];
}

export interface SearchCall extends Call {
  action: 'generate' | 'refine';
  /** The model node being expanded. */
  modelNode: number;
}

export const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
/** v = sigmoid(raw / tau) (oceanypt/TOA code/ensemble_methods.py MCTS_thread's sigmoid): stretches the RM's narrow range into (0, 1) for UCB. */
export const normalizeReward = (raw: number, tau: number) => sigmoid(raw / tau);

export const searchBudget = (p: Pick<SearchParams, 'models' | 'samples'>) => p.samples * p.models.length;

function resolve(p: SearchParams): Resolved {
  const k = p.models.length;
  if (k === 0) throw new Error('toa: no models');
  if (new Set(p.models).size !== k) throw new Error(`toa: model names must be distinct, got ${p.models.join(', ')}`);
  if (!Number.isInteger(p.samples) || p.samples < 1) throw new Error(`toa: samples must be a positive integer, got ${p.samples}`);
  if (!(p.tau > 0)) throw new Error(`toa: tau must be > 0, got ${p.tau}`);
  if (!(p.alpha >= 0) || !Number.isFinite(p.alpha)) throw new Error(`toa: alpha must be ≥ 0, got ${p.alpha}`);
  if (!Number.isInteger(p.topK) || p.topK < 1) throw new Error(`toa: topK must be a positive integer, got ${p.topK}`);
  const width = p.width ?? Math.floor(searchBudget(p) / 3);
  // Below K the first response layer could fill before every agent has been tried once (the seed asserts this).
  if (!Number.isInteger(width) || width < k)
    throw new Error(`toa: width ${width} must be an integer ≥ K = ${k} (raise samples or set width)`);
  return { models: [...p.models], samples: p.samples, tau: p.tau, alpha: p.alpha, topK: p.topK, width };
}

function checkParams(s: SearchState, p: SearchParams): void {
  if (s.method !== 'toa') throw new Error(`toa: not a TOA search state (method ${(s as { method?: string }).method})`);
  const r = resolve(p);
  const a = s.params;
  if (
    a.models.length !== r.models.length ||
    a.models.some((m, i) => m !== r.models[i]) ||
    a.samples !== r.samples ||
    a.tau !== r.tau ||
    a.alpha !== r.alpha ||
    a.topK !== r.topK ||
    a.width !== r.width
  )
    throw new Error(`toa: search state was built with ${JSON.stringify(a)}, driven with ${JSON.stringify(r)}`);
}

export function newSearch(p: SearchParams): SearchState {
  const params = resolve(p);
  const root: RootNode = { id: 0, kind: 'root', parent: -1, depth: 0, children: [], visits: 1, rewards: [] };
  const s: SearchState = { method: 'toa', params, plays: 0, nodes: [root] };
  for (const model of params.models) addArm(s, root, { model, action: 'generate', visits: 1, rewards: [], failures: 0 });
  return s;
}

function addArm(
  s: SearchState,
  parent: RootNode | ResponseNode,
  arm: Pick<ModelNode, 'model' | 'action' | 'visits' | 'rewards' | 'failures' | 'refineOf'>,
) {
  const node: ModelNode = { id: s.nodes.length, kind: 'model', parent: parent.id, depth: parent.depth + 1, children: [], ...arm };
  s.nodes.push(node);
  parent.children.push(node.id);
}

// Copy everything mutable; texts and usage objects are shared (never mutated), so a copy costs O(nodes), not O(text).
const copy = (s: SearchState): SearchState => ({
  ...s,
  nodes: s.nodes.map((n) => ({ ...n, children: [...n.children], rewards: [...n.rewards] })),
});

/**
 * UCB with the GLOBAL 1-based play index t (the seed's choice, not the parent's visit count):
 * Q + alpha·√(2·ln t / visits); +∞ for a node never played (visits 1, no rewards).
 */
function ucb(s: SearchState, n: SearchNode, t: number): number {
  if (n.rewards.length === 0 && n.visits === 1) return Number.POSITIVE_INFINITY;
  return q(n) + s.params.alpha * Math.sqrt((2 * Math.log(t)) / n.visits);
}

/**
 * Q = mean of the backed-up rewards, as in the seed — except that an arm's own failed calls (model nodes only) count
 * in the denominator: Q is the reward an arm yields per call it was given. Without this a dead or flaky agent that
 * once scored well would keep winning the selection (with alpha = 0.01 the shrinking bonus cannot stop it) and, under
 * rule (b), absorb the rest of the budget. No failure ever enters a rewards list: recorded rewards, ancestors' Q,
 * best-of-N and the top-k means see real scores only. No evidence at all (every play through the node failed): 0.
 */
function q(n: SearchNode): number {
  const calls = n.rewards.length + (n.kind === 'model' ? n.failures : 0);
  return calls === 0 ? 0 : n.rewards.reduce((a, b) => a + b, 0) / calls;
}

/** Highest UCB; ties → the first in child order (strict >). */
function pick(s: SearchState, candidates: SearchNode[], t: number): SearchNode {
  let best = candidates[0];
  let bestScore = ucb(s, best, t);
  for (const c of candidates.slice(1)) {
    const score = ucb(s, c, t);
    if (score > bestScore) [best, bestScore] = [c, score];
  }
  return best;
}

const scoredChildren = (s: SearchState, m: ModelNode) =>
  m.children.map((id) => s.nodes[id] as ResponseNode).filter((r) => r.v !== undefined);

/**
 * The topK scored response children by stored reward (stable: ties keep child order), returned in child order so
 * UCB's tie rule still means "first child". Failed responses are never candidates: nothing to rank or refine.
 */
function responseCandidates(s: SearchState, m: ModelNode): ResponseNode[] {
  const scored = scoredChildren(s, m);
  const keep = new Set(
    [...scored]
      .sort((a, b) => b.v! - a.v!)
      .slice(0, s.params.topK)
      .map((r) => r.id),
  );
  return scored.filter((r) => keep.has(r.id));
}

/**
 * Selection (oceanypt/TOA code/ensemble_methods.py fully_expanded, reached_width, child_better_than_parent): a model node is not fully expanded — selection stops and expands it — when
 *  (a) the next response layer (depth + 1, counted over the whole tree, failed responses included: they spent budget)
 *      holds fewer than `width` nodes, or
 *  (b) none of its scored response children beats its parent response's stored reward (root arms are exempt):
 *      keep re-trying an action under R until it improves on R.
 * Also (our addition, only reachable through failures): a node with no scored child has nothing to descend into.
 */
function fullyExpanded(s: SearchState, m: ModelNode): boolean {
  const layer = m.depth + 1;
  let count = 0;
  for (const n of s.nodes) if (n.kind === 'response' && n.depth === layer) count++;
  if (count < s.params.width) return false;
  const scored = scoredChildren(s, m);
  if (scored.length === 0) return false;
  const parent = s.nodes[m.parent];
  if (parent.kind === 'root') return true;
  const pv = (parent as ResponseNode).v!;
  return scored.some((r) => r.v! > pv);
}

/**
 * Selection from the root down to the model node to expand (undefined once N plays are done). Mutates `s` only by
 * giving a response node its generate arms on the first pass, hence is only ever run on a copy.
 */
function select(s: SearchState): ModelNode | undefined {
  if (s.plays >= searchBudget(s.params)) return undefined;
  const t = s.plays + 1;
  let node: SearchNode = s.nodes[0];
  for (;;) {
    if (node.kind === 'model') {
      if (!fullyExpanded(s, node)) return node;
      node = pick(s, responseCandidates(s, node), t);
      continue;
    }
    if (node.kind === 'response' && !node.generateArms) {
      // First pass through R: K fresh-generation arms whose statistics are a snapshot of the root's arm for the same
      // model (the prior), taken before this play's backup.
      node.generateArms = true;
      for (const armId of s.nodes[0].children) {
        const arm = s.nodes[armId] as ModelNode;
        addArm(s, node, { model: arm.model, action: 'generate', visits: arm.visits, rewards: [...arm.rewards], failures: arm.failures });
      }
    }
    // Root and response nodes are always fully expanded: choose among all their arms.
    node = pick(
      s,
      node.children.map((id) => s.nodes[id]),
      t,
    );
  }
}

function callFor(s: SearchState, m: ModelNode): SearchCall {
  const call: SearchCall = { play: s.plays + 1, modelNode: m.id, model: m.model, action: m.action, layer: (m.depth + 1) / 2, parents: [] };
  if (m.refineOf !== undefined) {
    const r = s.nodes[m.refineOf] as ResponseNode;
    call.parents = [r.play];
    call.parentText = r.text;
  }
  return call;
}

/** The next play, or undefined when N plays are done. Pure: `s` is not modified. */
export function nextPlay(s: SearchState, p: SearchParams): SearchCall | undefined {
  checkParams(s, p);
  const work = copy(s);
  const m = select(work);
  return m && callFor(work, m);
}

/**
 * Record one play: a response node under the expanded model node with v = sigmoid(raw / tau), then backup from that
 * MODEL node to the root (visits += 1, rewards.push(v)); the response node itself keeps visits 1, rewards [].
 * A failed play (RM could not score, or no text was generated) keeps its response node as a leaf with `failed` and no
 * reward or refine arms, and backs up visits only — no value is invented for it anywhere. It counts in the budget, in
 * the layer width, and against the arm that made the call (failures += 1, see q()), so the search still ends after
 * exactly N plays and moves away from an agent that keeps failing. Returns a new state; `s` is not modified.
 */
export function applyPlay(s: SearchState, p: SearchParams, call: Call, outcome: Outcome): SearchState {
  checkParams(s, p);
  checkOutcome(outcome);
  const work = copy(s);
  const m = select(work);
  if (!m) throw new Error(`toa: all ${searchBudget(s.params)} plays are done; nothing to apply play ${call.play} to`);
  const expected = callFor(work, m);
  if (call.play !== expected.play || (call as Partial<SearchCall>).modelNode !== m.id || call.model !== m.model || call.action !== m.action)
    throw new Error(
      `toa: play ${call.play} (${call.model} ${call.action}) is not the next play ${expected.play} (${m.model} ${m.action}, node ${m.id})`,
    );

  const { params } = work;
  const response: ResponseNode = {
    id: work.nodes.length,
    kind: 'response',
    parent: m.id,
    depth: m.depth + 1,
    children: [],
    visits: 1,
    rewards: [],
    play: expected.play,
    text: outcome.text,
    generateArms: false,
  };
  if ('failed' in outcome) response.failed = outcome.failed;
  else {
    response.reward = outcome.reward + 0; // + 0: a -0 would not survive JSON.
    response.v = normalizeReward(outcome.reward, params.tau);
  }
  if (outcome.usage) response.usage = outcome.usage;
  work.nodes.push(response);
  m.children.push(response.id);
  if (response.v !== undefined)
    for (const model of params.models)
      addArm(work, response, { model, action: 'refine', refineOf: response.id, visits: 1, rewards: [], failures: 0 });

  if (response.v === undefined) m.failures += 1;
  for (let n: SearchNode | undefined = m; n; n = work.nodes[n.parent]) {
    n.visits += 1;
    if (response.v !== undefined) n.rewards.push(response.v);
  }
  work.plays += 1;
  return work;
}

/** Every response (play order) with its tree position, plus the per-prompt diagnostics. */
export function searchResults(s: SearchState, k = DEFAULT_TOP_K): Results {
  const responses: ResponseRecord[] = [];
  for (const n of s.nodes) {
    if (n.kind !== 'response') continue;
    const m = s.nodes[n.parent] as ModelNode;
    const layer = n.depth / 2;
    const rec: ResponseRecord = {
      play: n.play,
      model: m.model,
      action: m.action,
      layer,
      label: layerLabel(m.model, layer),
      parents: m.refineOf === undefined ? [] : [(s.nodes[m.refineOf] as ResponseNode).play],
      text: n.text,
    };
    if (n.reward !== undefined) rec.reward = n.reward;
    if (n.failed !== undefined) rec.failed = n.failed;
    if (n.v !== undefined) rec.v = n.v;
    if (n.usage) rec.usage = n.usage;
    responses.push(rec);
  }
  return summarize(
    responses.sort((a, b) => a.play - b.play),
    k,
  );
}

/** The search behind the shared Planner interface (baselines.ts `planner('toa', …)`). */
export function toaPlanner(p: SearchParams): Planner<SearchState> {
  return {
    budget: searchBudget(resolve(p)),
    newState: () => newSearch(p),
    nextPlay: (s) => nextPlay(s, p),
    applyPlay: (s, call, outcome) => applyPlay(s, p, call, outcome),
    results: (s, k) => searchResults(s, k),
  };
}
