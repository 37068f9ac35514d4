// ★ THE DATA-BUILDING LOOP and the evaluation conversation (the seed's collabllm/datagen and collaborative
// simulation, paper §3): the user simulator writes the first message from the hidden goal; then, until `maxMessages`
// or the simulator ends the chat, the policy samples `candidates` assistant turns, each is scored by its multiturn-
// aware reward (`futures` simulated continuations of `window` messages — simulator and *current policy* — scored by
// the weighted metrics), every candidate is kept, the best is appended, and the next user message is taken from the
// best candidate's longest future. Futures of a candidate run concurrently; every call goes through the caller's
// Chat (the durable request cache), with a sampleKey per (task, sample, turn, candidate, future, step).
import type { Chat, ChatMessage, Decoding, TokenUsage } from '../../llm/types';
import { hashSeed } from '../../seeded-random';
import { SUCCESS_METRIC, type CollabMetric } from './config';
import type { MetricOutcome } from './metrics';
import type { Prompts } from '../prompt-texts';
import { multiturnReward, type Aggregation, type FutureOutcome } from './reward';
import { scoreConversation, type RunTaskTests, type ScoreContext } from './score-conversation';
import type { CollabCompat } from './seed-settings';
import type { CollabTask } from './tasks';
import { simulateUserTurn } from './user-simulator';
import { askJsonResponse } from './json-response';
import { proactiveReply } from './reply-schemas';
import { proactRequest } from './prompts';
import { addUsage } from '../../llm/usage';

export interface CollabChats {
  assistant: Chat;
  user: Chat;
  judge: Chat;
  extractor: Chat;
}

export interface CollabSettings {
  maxMessages: number;
  candidates: number;
  futures: number;
  window: number;
  weights: Partial<Record<CollabMetric, number>>;
  aggregation: Aggregation;
  /** The assistant's system prompt: none (collab, base) or the collaborative one (proactive). */
  proactive: boolean;
  /** Share of a state's candidates asked through the proactive instruction, and their re-asks (recipe.proact). */
  proact: { ratio: number; parseRetries: number };
  assistant: Decoding;
  /** goalHint: the simulator's goal carries the ground truth (recipe.user.goalHint; off by default). */
  user: Decoding & { parseRetries: number; goalHint?: boolean };
  /** extractRetries: the extractor's re-asks (parseRetries when absent). */
  judge: { maxTokens: number; parseRetries: number; extractRetries?: number };
  seed: number;
  /** The recipe's texts (prompts.ts COLLABLLM_PROMPTS, replaced by the config's `prompts:` file). */
  prompts: Prompts;
  /** How token_amount counts (metrics.ts tokenAmount); fixed when absent. */
  compat?: CollabCompat;
}

/** What the metrics of a conversation on `task` need (the data loop's, the evaluation's, the reward service's). */
export const scoreContextFor = (
  s: CollabSettings,
  task: CollabTask,
  chats: { judge: Chat; extractor: Chat },
  runTests: RunTaskTests | undefined,
): ScoreContext => ({
  task,
  judge: chats.judge,
  extractor: chats.extractor,
  ...(runTests ? { runTests } : {}),
  ...s.judge,
  ...(s.compat ? { compat: s.compat } : {}),
  prompts: s.prompts,
});

export interface Future {
  /** The messages after the candidate: user, assistant, … (at most `window`). */
  messages: ChatMessage[];
  terminated: boolean;
  /** Why the simulation failed (the simulator's reply could not be read): the future is not scored. */
  failed?: string;
  metrics: Partial<Record<CollabMetric, MetricOutcome>>;
}

export interface Candidate {
  /** The reply (a proactive candidate's `response`); empty when `failed`. */
  completion: string;
  /** Asked through the proactive instruction (recipe.proact). */
  proact?: boolean;
  /** Why there is no candidate: its proactive reply could not be read. It has no score and takes part in no pair. */
  failed?: string;
  /** The multiturn-aware reward; absent when no future could be scored (never 0 for a failed judge). */
  score?: number;
  usedFutures: number;
  missingFutures: number;
  perMetric: Record<string, number>;
  futures: Future[];
}

export interface CollabTurn {
  /** The conversation up to this state (ends with a user message), as the assistant sees it. */
  prompt: ChatMessage[];
  candidates: Candidate[];
  /** Index of the appended candidate; absent when none could be scored. */
  best?: number;
}

export type Ending = 'terminated' | 'max-messages' | 'simulator-failed' | 'no-scored-candidate';

export interface CollabBuildRecord {
  kind: 'build';
  taskId: string;
  sampleIndex: number;
  turns: CollabTurn[];
  /** The conversation as built (best candidates, user messages), without the system prompt. */
  conversation: ChatMessage[];
  ending: Ending;
  simulatorFailures: number;
  missingScores: number;
  usage: TokenUsage;
}

export interface CollabEvalRecord {
  kind: 'eval';
  taskId: string;
  sampleIndex: number;
  conversation: ChatMessage[];
  ending: Ending;
  metrics: Partial<Record<CollabMetric, MetricOutcome>>;
  simulatorFailures: number;
  usage: TokenUsage;
}

const systemFor = (s: CollabSettings): ChatMessage[] =>
  s.proactive ? [{ role: 'system', content: s.prompts.render('assistant.proactive_system') }] : [];

interface Ctx {
  task: CollabTask;
  chats: CollabChats;
  s: CollabSettings;
  score: ScoreContext;
  usage: TokenUsage;
  failures: { simulator: number; missing: number };
}

async function assistantTurn(c: Ctx, history: ChatMessage[], key: string): Promise<string> {
  const out = await c.chats.assistant({
    messages: [...systemFor(c.s), ...history],
    decoding: { ...c.s.assistant, seed: hashSeed(c.s.seed, c.task.id, key) },
    sampleKey: key,
  });
  addUsage(c.usage, out.usage);
  return out.texts[0] ?? '';
}

/**
 * What the simulator holds as its goal: the single-turn prompt and nothing else, for every task kind, as both seeds
 * build it (CollabLLM collabllm/modules/user_simulator.py fills its goal with single_turn_prompt; verl-recipe's
 * collabllm interaction with interaction_kwargs.single_turn_prompt). A document task's prompt carries the reference
 * article because the seed's medium adaptor writes it there. `hint` appends the ground truth the way the seed's
 * compute_mr_api notebook does once ("(Hint: …)"); a user who knows the answer can steer the assistant to it.
 */
export const hiddenGoal = (task: CollabTask, hint = false) => (hint ? `${task.prompt}(Hint: ${task.answer})` : task.prompt);

async function userTurn(c: Ctx, history: ChatMessage[], key: string) {
  const t = await simulateUserFor(c.task, c.chats.user, c.s, history, key);
  addUsage(c.usage, t.usage);
  if (t.kind === 'failed') c.failures.simulator++;
  return t;
}

/** The simulated user's next turn on `task` after `history` (here, and in the online-RL reward service). */
export function simulateUserFor(
  task: CollabTask,
  user: Chat,
  s: Pick<CollabSettings, 'user' | 'seed' | 'prompts'>,
  history: ChatMessage[],
  key: string,
) {
  const { parseRetries, goalHint, ...decoding } = s.user;
  return simulateUserTurn({
    chat: user,
    prompts: s.prompts,
    task: { description: task.description, goal: hiddenGoal(task, goalHint) },
    history,
    decoding: { ...decoding, seed: hashSeed(s.seed, task.id, key) },
    parseRetries,
    key,
  });
}

/** One simulated continuation after `candidate`: user, assistant, … for `window` messages or until termination. */
async function simulateFuture(c: Ctx, history: ChatMessage[], key: string): Promise<Future> {
  const messages: ChatMessage[] = [];
  for (let step = 0; messages.length < c.s.window; step++) {
    const at = [...history, ...messages];
    if (step % 2 === 0) {
      const u = await userTurn(c, at, `${key}/u${step}`);
      if (u.kind === 'failed') return { messages, terminated: false, failed: u.reason, metrics: {} };
      if (u.text) messages.push({ role: 'user', content: u.text });
      if (u.kind === 'terminate') return { messages, terminated: true, metrics: {} };
    } else messages.push({ role: 'assistant', content: await assistantTurn(c, at, `${key}/a${step}`) });
  }
  return { messages, terminated: false, metrics: {} };
}

/** A proactive candidate: the conversation in one request through the proactive instruction, its `response` kept
 *  (the seed's LLMCollaborator with method "proact"; its reply length, 1024, is the one the seed's prompt names). */
async function proactTurn(c: Ctx, history: ChatMessage[], key: string): Promise<{ text: string } | { failed: string }> {
  const r = await askJsonResponse({
    chat: c.chats.assistant,
    messages: [{ role: 'user', content: proactRequest(c.s.prompts, history, 1024) }],
    decoding: { ...c.s.assistant, seed: hashSeed(c.s.seed, c.task.id, key) },
    parseRetries: c.s.proact.parseRetries,
    key,
    who: 'proactive candidate',
    schema: proactiveReply,
    name: 'proactive_candidate',
  });
  addUsage(c.usage, r.usage);
  return r.kind === 'ok' ? { text: r.response } : { failed: r.reason };
}

/** Candidate k of a state: the first ⌊candidates × ratio⌋ are proactive, as the seed's int(n × proact_prompt_ratio). */
async function sampleCandidate(c: Ctx, prompt: ChatMessage[], k: number, key: string): Promise<Candidate> {
  if (k >= Math.floor(c.s.candidates * c.s.proact.ratio)) return scoreCandidate(c, prompt, await assistantTurn(c, prompt, key), key);
  const r = await proactTurn(c, prompt, `${key}/proact`);
  if ('failed' in r) {
    c.failures.missing++;
    return { completion: '', proact: true, failed: r.failed, usedFutures: 0, missingFutures: 0, perMetric: {}, futures: [] };
  }
  return { ...(await scoreCandidate(c, prompt, r.text, key)), proact: true };
}

async function scoreCandidate(c: Ctx, prompt: ChatMessage[], completion: string, key: string): Promise<Candidate> {
  const withCandidate: ChatMessage[] = [...prompt, { role: 'assistant', content: completion }];
  const played = await Promise.all(Array.from({ length: c.s.futures }, (_, f) => simulateFuture(c, withCandidate, `${key}/f${f}`)));
  return { completion, ...(await rewardOfFutures(c, withCandidate, prompt.length, played, key)) };
}

/** Scores futures already played after a candidate (`withCandidate` ends with it; `from` is its index) and combines
 *  them into its multiturn-aware reward. A failed future stays unscored, and so does a future with a missing metric. */
async function rewardOfFutures(c: Ctx, withCandidate: ChatMessage[], from: number, played: Future[], key: string) {
  const metrics = Object.keys(c.s.weights) as CollabMetric[];
  const futures = await Promise.all(
    played.map(async (future, f): Promise<Future> => {
      if (future.failed) return future;
      const scored = await scoreConversation([...withCandidate, ...future.messages], from, metrics, c.score, `${key}/f${f}/judge`);
      addUsage(c.usage, scored.usage);
      return { ...future, metrics: scored.metrics };
    }),
  );
  const outcomes: FutureOutcome[] = futures.map((f) =>
    f.failed ? { failed: f.failed } : { metrics: f.metrics as Record<string, MetricOutcome> },
  );
  const reward = multiturnReward(outcomes, c.s.weights as Record<string, number>, c.s.aggregation);
  c.failures.missing += reward.missingFutures;
  return {
    ...(reward.score !== undefined ? { score: reward.score } : {}),
    usedFutures: reward.usedFutures,
    missingFutures: reward.missingFutures,
    perMetric: reward.perMetric,
    futures,
  };
}

/**
 * The multiturn-aware reward of one response whose futures someone else played (verl's agent loop during online
 * RL): `withResponse` is the prompt plus the response, each future the messages after it. Scored exactly as a
 * candidate of the data-building loop is.
 */
export async function scorePlayedFutures(
  task: CollabTask,
  withResponse: ChatMessage[],
  played: Array<Pick<Future, 'messages' | 'terminated' | 'failed'>>,
  s: CollabSettings,
  score: ScoreContext,
  key: string,
) {
  // No chats: nothing is played here, only judged (through `score`).
  const c = newCtx(task, {} as CollabChats, s, score);
  const reward = await rewardOfFutures(
    c,
    withResponse,
    withResponse.length - 1,
    played.map((f) => ({ ...f, metrics: {} })),
    key,
  );
  return { ...reward, usage: c.usage };
}

/** The candidate with the highest reward (the first on ties); undefined when none was scored. */
function bestOf(candidates: readonly Candidate[]): number | undefined {
  let best: number | undefined;
  candidates.forEach((x, i) => {
    if (x.score !== undefined && (best === undefined || x.score > candidates[best].score!)) best = i;
  });
  return best;
}

const newCtx = (task: CollabTask, chats: CollabChats, s: CollabSettings, score: ScoreContext): Ctx => ({
  task,
  chats,
  s,
  score,
  usage: { promptTokens: 0, completionTokens: 0 },
  failures: { simulator: 0, missing: 0 },
});

/** Builds one training conversation (every candidate of every state kept, with its futures and reward). */
export async function buildConversation(
  task: CollabTask,
  sampleIndex: number,
  chats: CollabChats,
  s: CollabSettings,
  score: ScoreContext,
): Promise<CollabBuildRecord> {
  const c = newCtx(task, chats, s, score);
  const key = `${task.id}/s${sampleIndex}`;
  const conversation: ChatMessage[] = [];
  const turns: CollabTurn[] = [];
  const record = (ending: Ending): CollabBuildRecord => ({
    kind: 'build',
    taskId: task.id,
    sampleIndex,
    turns,
    conversation,
    ending,
    simulatorFailures: c.failures.simulator,
    missingScores: c.failures.missing,
    usage: c.usage,
  });
  const first = await userTurn(c, [], `${key}/first`);
  if (first.kind === 'failed') return record('simulator-failed');
  if (first.kind === 'terminate') {
    // A user who ends the chat in its opening message gets no assistant turn: there is nothing to build.
    if (first.text) conversation.push({ role: 'user', content: first.text });
    return record('terminated');
  }
  conversation.push({ role: 'user', content: first.text });
  for (let t = 0; conversation.length < s.maxMessages; t++) {
    const prompt = [...conversation];
    const candidates = await Promise.all(
      Array.from({ length: s.candidates }, (_, k) => sampleCandidate(c, prompt, k, `${key}/t${t}/c${k}`)),
    );
    const best = bestOf(candidates);
    turns.push({ prompt, candidates, ...(best !== undefined ? { best } : {}) });
    if (best === undefined) return record('no-scored-candidate');
    conversation.push({ role: 'assistant', content: candidates[best].completion });
    if (conversation.length >= s.maxMessages) break;
    // The next user message: the first message of the best candidate's longest future (the seed's choice).
    const longest = candidates[best].futures
      .filter((f) => !f.failed)
      .reduce<Future | undefined>((a, f) => (a && a.messages.length >= f.messages.length ? a : f), undefined);
    const next = longest?.messages[0];
    if (next?.role !== 'user') return record('terminated');
    conversation.push(next);
    if (longest!.terminated && longest!.messages.length === 1) return record('terminated');
  }
  return record('max-messages');
}

/** The metrics an evaluation reports: the task's success metric, interactivity and the assistant's words. */
export const evaluationMetrics = (task: CollabTask): CollabMetric[] => [SUCCESS_METRIC[task.kind], 'interactivity', 'token_amount'];

/** One evaluation conversation: the policy and the simulator talk until it ends the chat or `maxMessages`. */
export async function evaluateConversation(
  task: CollabTask,
  sampleIndex: number,
  chats: CollabChats,
  s: CollabSettings,
  score: ScoreContext,
): Promise<CollabEvalRecord> {
  const c = newCtx(task, chats, s, score);
  const key = `${task.id}/eval/s${sampleIndex}`;
  const conversation: ChatMessage[] = [];
  let ending: Ending = 'max-messages';
  for (let step = 0; conversation.length < s.maxMessages; step++) {
    if (step % 2 === 0) {
      const u = await userTurn(c, conversation, `${key}/u${step}`);
      if (u.kind === 'failed') {
        ending = 'simulator-failed';
        break;
      }
      if (u.text) conversation.push({ role: 'user', content: u.text });
      if (u.kind === 'terminate') {
        ending = 'terminated';
        break;
      }
    } else conversation.push({ role: 'assistant', content: await assistantTurn(c, conversation, `${key}/a${step}`) });
  }
  const scored = conversation.some((m) => m.role === 'assistant')
    ? await scoreConversation(conversation, 0, evaluationMetrics(task), score, `${key}/judge`)
    : { metrics: {}, usage: { promptTokens: 0, completionTokens: 0 } };
  addUsage(c.usage, scored.usage);
  return {
    kind: 'eval',
    taskId: task.id,
    sampleIndex,
    conversation,
    ending,
    metrics: scored.metrics,
    simulatorFailures: c.failures.simulator,
    usage: c.usage,
  };
}
