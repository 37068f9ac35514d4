// CollabLLM's data-building loop and evaluation conversation with scripted chats (simulator, assistant and judges
// whose replies are functions of the call's sampleKey), the missing-score and simulator-failure paths, the training
// data built from hand-written records (SFT, DPO, the published flat multi-turn rows), and a sanity check with the
// SIMULATED policy that the reward tracks the policy's quality.
import { describe, expect, it } from 'vitest';
import type { ChatCall, ChatMessage } from '../../../../../activities/llm/types';
import { DEFAULT_WEIGHTS } from '../../../../../activities/recipes/collabllm/config';
import {
  buildConversation,
  type Candidate,
  type CollabBuildRecord,
  type CollabChats,
  type CollabSettings,
  type CollabTurn,
  evaluateConversation,
  type Future,
} from '../../../../../activities/recipes/collabllm/conversation';
import { collabMultiturnRows, collabPreferencePairs, collabSftExamples } from '../../../../../activities/recipes/collabllm/data';
import { DEFAULT_COLLABLLM_PROMPTS, PROACTIVE_SYSTEM_PROMPT, TERMINATE } from '../../../../../activities/recipes/collabllm/prompts';
import type { ScoreContext } from '../../../../../activities/recipes/collabllm/score-conversation';
import { createCollabSimulatedPolicy } from '../../../../../activities/recipes/collabllm/simulated-policy';
import { type CollabTask, loadCollabTasks, parseCollabTasks } from '../../../../../activities/recipes/collabllm/tasks';
import { allText, type Scripted, scripted, userJson } from '../../../../helpers/scripted-chat';
import { simulatedCollabChats } from '../../../../helpers/simulated-chat';

// ---- scripted chats ----------------------------------------------------------------------------------------------

const judgeJson = (field: 'accuracy' | 'interactivity', v: number) => JSON.stringify({ thought: 'judged', [field]: v });

/** The parts of a sampleKey `<task>/s<i>/t<turn>/c<cand>/f<future>/<u|a><step>[/judge/<metric>][/retry-<n>]`. */
function keyOf(sampleKey: string) {
  const m = /\/t(\d+)\/c(\d+)(?:\/f(\d+))?(?:\/([ua])(\d+))?/.exec(sampleKey);
  const num = (s: string | undefined) => (s === undefined ? undefined : Number(s));
  return {
    t: num(m?.[1]),
    c: num(m?.[2]),
    f: num(m?.[3]),
    role: m?.[4] as 'u' | 'a' | undefined,
    step: num(m?.[5]),
    metric: /\/judge\/(accuracy|interactivity)/.exec(sampleKey)?.[1] as 'accuracy' | 'interactivity' | undefined,
  };
}

const TASK: CollabTask = {
  id: 'sq',
  kind: 'math',
  description: 'question answering',
  prompt: 'HIDDEN-GOAL: what is 12 squared?',
  answer: 'Since 12 * 12 = 144, the answer is \\boxed{144}.',
};

const settings = (o: Partial<CollabSettings> = {}): CollabSettings => ({
  maxMessages: 6,
  candidates: 3,
  futures: 2,
  window: 3,
  weights: { accuracy: 1, interactivity: 1 },
  aggregation: 'weighted-mean',
  proactive: true,
  proact: { ratio: 0, parseRetries: 1 },
  assistant: { temperature: 0.8, maxTokens: 256 },
  user: { temperature: 1, maxTokens: 256, parseRetries: 1 },
  judge: { maxTokens: 128, parseRetries: 1 },
  seed: 11,
  prompts: DEFAULT_COLLABLLM_PROMPTS,
  ...o,
});

interface Fakes {
  user: Scripted;
  assistant: Scripted;
  judge: Scripted;
  extractor: Scripted;
}

function fakes(o: { user: (call: ChatCall) => string; assistant: (call: ChatCall) => string; judge: (call: ChatCall) => string }): Fakes {
  return {
    user: scripted(o.user),
    assistant: scripted(o.assistant),
    judge: scripted(o.judge),
    extractor: scripted(() => {
      throw new Error('a math task never asks the extractor');
    }),
  };
}

const chatsOf = (f: Fakes): CollabChats => ({ assistant: f.assistant, user: f.user, judge: f.judge, extractor: f.extractor });
const scoreCtx = (f: Fakes, s: CollabSettings, task = TASK): ScoreContext => ({
  task,
  judge: f.judge,
  extractor: f.extractor,
  parseRetries: s.judge.parseRetries,
  maxTokens: s.judge.maxTokens,
  prompts: s.prompts,
});
const build = (f: Fakes, s: CollabSettings, task = TASK, sample = 0) =>
  buildConversation(task, sample, chatsOf(f), s, scoreCtx(f, s, task));
const allCalls = (f: Fakes) => [...f.user.calls, ...f.assistant.calls, ...f.judge.calls, ...f.extractor.calls];

/** The simulator's opening, its thought quoting the hidden goal (which must never reach the assistant). */
const OPENING = 'hi, I need help with a square';
const opening = () => userJson(OPENING, `my goal is ${TASK.prompt}`);
/** A future's user message, unique per (turn, candidate, future, step). */
const futureUser = (t: number, c: number, f: number, step: number) => `user t${t} c${c} f${f} u${step}`;
const candidateText = (t: number, c: number) => `answer t${t} c${c}`;

// ---- the data-building loop --------------------------------------------------------------------------------------

describe('buildConversation with scripted chats', () => {
  // Interactivity per (turn, candidate); accuracy is 0, so with weights {accuracy: 1, interactivity: 1} these are the
  // rewards. Turn 0 ties c1 and c2 (the first wins), turn 1 prefers c0, turn 2 c2.
  const INTER = [
    [0.2, 0.7, 0.7],
    [0.9, 0.1, 0.5],
    [0.3, 0.3, 0.8],
  ];
  const BEST = [1, 0, 2];

  function mainFakes() {
    return fakes({
      user: (call) => {
        if (call.sampleKey.endsWith('/first')) return opening();
        const k = keyOf(call.sampleKey);
        // Future 0 ends (token only) at its second user message: it is shorter than future 1 (window 3).
        if (k.f === 0 && k.step === 2) return userJson(TERMINATE, `goal: ${TASK.prompt}`);
        return userJson(futureUser(k.t!, k.c!, k.f!, k.step!), `goal: ${TASK.prompt}`);
      },
      assistant: (call) => {
        const k = keyOf(call.sampleKey);
        return k.f === undefined ? candidateText(k.t!, k.c!) : `follow-up t${k.t} c${k.c} f${k.f} a${k.step}`;
      },
      judge: (call) => {
        const k = keyOf(call.sampleKey);
        return k.metric === 'accuracy' ? judgeJson('accuracy', 0) : judgeJson('interactivity', INTER[k.t!][k.c!]);
      },
    });
  }

  it('opens with the simulator from an empty history, then appends the best candidate and the best future’s first user message', async () => {
    const f = mainFakes();
    const s = settings();
    const r = await build(f, s);

    // The opening: the simulator's first call, with an empty history and the hidden goal.
    expect(f.user.calls[0].sampleKey).toBe('sq/s0/first');
    expect(allText(f.user.calls[0])).toContain('(nothing yet');
    expect(allText(f.user.calls[0])).toContain(TASK.prompt);
    expect(r.conversation[0]).toEqual({ role: 'user', content: OPENING });

    // 6 messages: user, 3 × (best candidate, next user from the best candidate's longest future = future 1).
    expect(r.ending).toBe('max-messages');
    expect(r.conversation).toEqual([
      { role: 'user', content: OPENING },
      { role: 'assistant', content: candidateText(0, 1) },
      { role: 'user', content: futureUser(0, 1, 1, 0) },
      { role: 'assistant', content: candidateText(1, 0) },
      { role: 'user', content: futureUser(1, 0, 1, 0) },
      { role: 'assistant', content: candidateText(2, 2) },
    ]);
    expect(r.turns.map((t) => t.best)).toEqual(BEST);
    expect(r.turns.map((t) => t.candidates.map((c) => c.score))).toEqual(INTER);
    // Each state's prompt is the conversation before it and ends with a user message.
    expect(r.turns.map((t) => t.prompt)).toEqual([r.conversation.slice(0, 1), r.conversation.slice(0, 3), r.conversation.slice(0, 5)]);
    expect(r).toMatchObject({ kind: 'build', taskId: 'sq', sampleIndex: 0, simulatorFailures: 0, missingScores: 0 });
  });

  it('each state has `candidates` candidates with `futures` futures of at most `window` messages, user first, alternating', async () => {
    const f = mainFakes();
    const s = settings();
    const r = await build(f, s);
    expect(r.turns).toHaveLength(3);
    for (const [t, turn] of r.turns.entries()) {
      expect(turn.candidates.map((c) => c.completion)).toEqual([0, 1, 2].map((c) => candidateText(t, c)));
      for (const [c, cand] of turn.candidates.entries()) {
        expect(cand.futures).toHaveLength(s.futures);
        expect(cand).toMatchObject({ usedFutures: 2, missingFutures: 0 });
        for (const fut of cand.futures) {
          expect(fut.messages.length).toBeLessThanOrEqual(s.window);
          expect(fut.messages.map((m) => m.role)).toEqual(fut.messages.map((_, i) => (i % 2 === 0 ? 'user' : 'assistant')));
          expect(Object.keys(fut.metrics).sort()).toEqual(['accuracy', 'interactivity']);
        }
        // Future 0 was ended by the token alone at its second user message; future 1 ran the whole window.
        expect(cand.futures[0]).toMatchObject({ terminated: true });
        expect(cand.futures[0].messages).toEqual([
          { role: 'user', content: futureUser(t, c, 0, 0) },
          { role: 'assistant', content: `follow-up t${t} c${c} f0 a1` },
        ]);
        expect(cand.futures[1]).toMatchObject({ terminated: false });
        expect(cand.futures[1].messages.map((m) => m.content)).toEqual([
          futureUser(t, c, 1, 0),
          `follow-up t${t} c${c} f1 a1`,
          futureUser(t, c, 1, 2),
        ]);
      }
    }
    // The calls: per state 3 candidates + 3 × 2 future assistant turns; 3 × 2 × 2 simulator turns; 3 × 2 × 2 judges.
    expect(f.assistant.calls).toHaveLength(3 * 9);
    expect(f.user.calls).toHaveLength(1 + 3 * 12);
    expect(f.judge.calls).toHaveLength(3 * 12);
    expect(f.extractor.calls).toHaveLength(0);
    expect(r.usage).toEqual({ promptTokens: 10 * allCalls(f).length, completionTokens: 5 * allCalls(f).length });
  });

  it('a future’s turns see the prompt, the candidate and the future so far; the assistant gets the system prompt (proactive)', async () => {
    const f = mainFakes();
    const r = await build(f, settings());
    const prompt = r.turns[1].prompt;
    const call = (key: string) => f.assistant.calls.find((c) => c.sampleKey === key)!;
    expect(call('sq/s0/t1/c2').messages).toEqual([{ role: 'system', content: PROACTIVE_SYSTEM_PROMPT }, ...prompt]);
    expect(call('sq/s0/t1/c2/f1/a1').messages).toEqual([
      { role: 'system', content: PROACTIVE_SYSTEM_PROMPT },
      ...prompt,
      { role: 'assistant', content: candidateText(1, 2) },
      { role: 'user', content: futureUser(1, 2, 1, 0) },
    ]);
    // The simulator reads the future so far as a rendered conversation.
    const sim = allText(f.user.calls.find((c) => c.sampleKey === 'sq/s0/t1/c2/f1/u2')!);
    expect(sim).toContain(
      `**Assistant**: ${candidateText(1, 2)}\n\n**User**: ${futureUser(1, 2, 1, 0)}\n\n**Assistant**: follow-up t1 c2 f1 a1`,
    );
    // Not proactive: no system message at all.
    const g = mainFakes();
    await build(g, settings({ maxMessages: 2, proactive: false }));
    expect(g.assistant.calls.every((c) => c.messages[0].role === 'user')).toBe(true);
  });

  it('samples that must differ have distinct sampleKeys (and seeds): candidates, futures, steps, judges', async () => {
    const f = mainFakes();
    await build(f, settings());
    const keys = allCalls(f).map((c) => c.sampleKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(f.assistant.calls.filter((c) => /\/t0\/c\d$/.test(c.sampleKey)).map((c) => c.sampleKey)).toEqual([
      'sq/s0/t0/c0',
      'sq/s0/t0/c1',
      'sq/s0/t0/c2',
    ]);
    // The server seed follows the key: candidates of one state and the futures of one candidate are sampled apart.
    const seeds = (chat: Scripted, re: RegExp) => chat.calls.filter((c) => re.test(c.sampleKey)).map((c) => c.decoding.seed);
    for (const [chat, re] of [
      [f.assistant, /^sq\/s0\/t1\/c\d$/],
      [f.assistant, /^sq\/s0\/t1\/c0\/f\d\/a1$/],
      [f.user, /^sq\/s0\/t1\/c0\/f\d\/u0$/],
    ] as const) {
      const s = seeds(chat, re);
      expect(s.length).toBeGreaterThanOrEqual(2);
      expect(s.every((x) => typeof x === 'number')).toBe(true);
      expect(new Set(s).size).toBe(s.length);
    }
    // Another sample of the same task gets other keys (and so other cache entries).
    const g = mainFakes();
    await build(g, settings(), TASK, 1);
    const other = new Set(allCalls(g).map((c) => c.sampleKey));
    expect(keys.some((k) => other.has(k))).toBe(false);
  });

  it('the assistant never receives the hidden goal, though the simulator’s every call has it', async () => {
    const f = mainFakes();
    await build(f, settings());
    for (const call of f.assistant.calls) expect(allText(call)).not.toContain('HIDDEN-GOAL');
    for (const call of f.user.calls) expect(allText(call)).toContain(TASK.prompt);
  });

  it('stops when the best candidate’s longest future ends the chat at once, keeping the closing words', async () => {
    const f = fakes({
      user: (call) => (call.sampleKey.endsWith('/first') ? opening() : userJson(`thanks, that's all ${TERMINATE}`)),
      assistant: (call) => candidateText(0, keyOf(call.sampleKey).c!),
      judge: (call) =>
        keyOf(call.sampleKey).metric === 'accuracy'
          ? judgeJson('accuracy', keyOf(call.sampleKey).c === 1 ? 1 : 0)
          : judgeJson('interactivity', 0.5),
    });
    const r = await build(f, settings({ maxMessages: 14 }));
    expect(r.ending).toBe('terminated');
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0].best).toBe(1);
    expect(r.turns[0].candidates[1].futures.every((x) => x.terminated && x.messages.length === 1)).toBe(true);
    expect(r.conversation).toEqual([
      { role: 'user', content: OPENING },
      { role: 'assistant', content: candidateText(0, 1) },
      { role: 'user', content: "thanks, that's all" },
    ]);
    // No assistant call after the end: only the candidates (each future ended at its first user message).
    expect(f.assistant.calls).toHaveLength(3);
  });

  it('stops after the best candidate when every future ends with the token alone', async () => {
    const f = fakes({
      user: (call) => (call.sampleKey.endsWith('/first') ? opening() : userJson(TERMINATE)),
      assistant: (call) => candidateText(0, keyOf(call.sampleKey).c!),
      judge: (call) =>
        keyOf(call.sampleKey).metric === 'accuracy' ? judgeJson('accuracy', 1) : judgeJson('interactivity', 0.1 * keyOf(call.sampleKey).c!),
    });
    const r = await build(f, settings({ maxMessages: 14 }));
    expect(r.ending).toBe('terminated');
    expect(r.turns[0].best).toBe(2);
    expect(r.turns[0].candidates.every((c) => c.futures.every((x) => x.terminated && x.messages.length === 0))).toBe(true);
    expect(r.conversation).toEqual([
      { role: 'user', content: OPENING },
      { role: 'assistant', content: candidateText(0, 2) },
    ]);
  });

  it('maxMessages counts both roles: 2 ends after the first assistant turn, 1 builds no state', async () => {
    const f = mainFakes();
    const two = await build(f, settings({ maxMessages: 2 }));
    expect(two.ending).toBe('max-messages');
    expect(two.conversation.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(two.turns).toHaveLength(1);
    const g = mainFakes();
    const one = await build(g, settings({ maxMessages: 1 }));
    expect(one).toMatchObject({ ending: 'max-messages', turns: [], conversation: [{ role: 'user', content: OPENING }] });
    expect(g.assistant.calls).toHaveLength(0);
  });

  it('an opening message that ends the chat builds no state (ending "terminated")', async () => {
    // BUG (conversation.ts, `if (first.kind === 'terminate' && !first.text)`): only a token-only opening ends the build; an opening
    // with words besides the token (e.g. the simulated policy's "I give up. [[TERMINATE CHAT]]") is pushed and the
    // loop samples candidates and futures for a chat the user has already ended. evaluateConversation and the
    // in-loop case (`longest!.terminated && …length === 1`) both stop on a terminating user message with text.
    const f = fakes({
      user: () => userJson(`never mind, I found it ${TERMINATE}`),
      assistant: () => 'Sure, what do you need?',
      judge: (call) => judgeJson(keyOf(call.sampleKey).metric ?? 'interactivity', 1),
    });
    const r = await build(f, settings({ maxMessages: 14 }));
    expect(r.ending).toBe('terminated');
    expect(r.turns).toEqual([]);
    expect(f.assistant.calls).toHaveLength(0);
    // The token-only opening (handled): no message, no state.
    const g = fakes({ user: () => userJson(TERMINATE), assistant: () => 'x', judge: () => 'x' });
    const e = await build(g, settings());
    expect(e).toMatchObject({ ending: 'terminated', turns: [], conversation: [] });
  });
});

// ---- missing scores and simulator failures ------------------------------------------------------------------------

describe('missing scores and simulator failures', () => {
  const followUp = (call: ChatCall) => (keyOf(call.sampleKey).f === undefined ? candidateText(0, keyOf(call.sampleKey).c!) : 'ok fine');
  const simulator = (call: ChatCall) => (call.sampleKey.endsWith('/first') ? opening() : userJson('go on'));

  it('a judge that is never readable leaves every candidate unscored: no-scored-candidate, no training data', async () => {
    const f = fakes({ user: simulator, assistant: followUp, judge: () => 'I think the assistant did well overall.' });
    const s = settings({ candidates: 3, futures: 2, window: 2, maxMessages: 14 });
    const r = await build(f, s);
    expect(r.ending).toBe('no-scored-candidate');
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0].best).toBeUndefined();
    for (const c of r.turns[0].candidates) {
      expect(c.score).toBeUndefined();
      expect(c).toMatchObject({ usedFutures: 0, missingFutures: 2, perMetric: {} });
      // Judged, not failed: the futures ran, their metrics are missing (never 0).
      for (const fut of c.futures) {
        expect(fut.failed).toBeUndefined();
        expect(fut.metrics.accuracy).toMatchObject({ missing: expect.stringContaining('unreadable') });
        expect(fut.metrics.interactivity).toMatchObject({ missing: expect.stringContaining('unreadable') });
      }
    }
    expect(r.missingScores).toBe(3 * 2);
    expect(r.simulatorFailures).toBe(0);
    expect(r.conversation).toEqual([{ role: 'user', content: OPENING }]);
    // 3 candidates × 2 futures × 2 judges × (1 + parseRetries) attempts.
    expect(f.judge.calls).toHaveLength(3 * 2 * 2 * 2);
    const o = { minGap: 0 };
    expect(collabPreferencePairs([r], o)).toEqual([]);
    expect(collabSftExamples([r], o)).toEqual([]);
    expect(collabMultiturnRows([r], () => TASK)).toEqual([]);
  });

  it('a judge failing for one future only: the reward is the weighted mean over the other futures', async () => {
    const f = fakes({
      user: simulator,
      // c0: 4 words, c1: 2 words; every future assistant turn: 2 words.
      assistant: (call) => {
        const k = keyOf(call.sampleKey);
        return k.f !== undefined ? 'ok fine' : k.c === 0 ? 'one two three four' : 'five six';
      },
      judge: (call) => {
        const k = keyOf(call.sampleKey);
        if (k.c === 1) return k.metric === 'accuracy' ? judgeJson('accuracy', 0) : judgeJson('interactivity', 0.5);
        // Candidate 0: future 1's accuracy judge never answers readably (its interactivity does).
        if (k.f === 1) return k.metric === 'accuracy' ? 'correct, I would say' : judgeJson('interactivity', 0.6);
        const table = [{ accuracy: 1, interactivity: 0.8 }, undefined, { accuracy: 0, interactivity: 0.4 }][k.f!]!;
        return judgeJson(k.metric!, table[k.metric!]);
      },
    });
    const s = settings({
      candidates: 2,
      futures: 3,
      window: 2,
      maxMessages: 2,
      weights: { accuracy: 1, interactivity: 0.5, token_amount: -0.5 },
    });
    const r = await build(f, s);
    const [c0, c1] = r.turns[0].candidates;
    // token_amount counts the candidate's and the future's assistant words: c0 (4 + 2)/1000, c1 (2 + 2)/1000.
    // c0: future 0: 1 + 0.5·0.8 − 0.5·0.006 = 1.397; future 1 left out; future 2: 0 + 0.5·0.4 − 0.003 = 0.197.
    // Mean 0.797; scoring the missing accuracy as 0 would give (1.397 + 0.297 + 0.197) / 3 = 0.6303….
    expect(c0.score).toBeCloseTo(0.797, 12);
    expect(c0).toMatchObject({ usedFutures: 2, missingFutures: 1 });
    expect(c0.perMetric.accuracy).toBeCloseTo(0.5, 12);
    expect(c0.perMetric.interactivity).toBeCloseTo(0.6, 12);
    expect(c0.perMetric.token_amount).toBeCloseTo(0.006, 12);
    expect(c0.futures[1].failed).toBeUndefined();
    expect(c0.futures[1].metrics.accuracy).toMatchObject({ missing: expect.any(String) });
    // c1: 0 + 0.25 − 0.002 = 0.248 for every future.
    expect(c1.score).toBeCloseTo(0.248, 12);
    expect(c1).toMatchObject({ usedFutures: 3, missingFutures: 0 });
    expect(r.turns[0].best).toBe(0);
    expect(r.missingScores).toBe(1);
    expect(r.ending).toBe('max-messages');
  });

  it('a simulator that never returns readable JSON on the first message: simulator-failed, no turns', async () => {
    const f = fakes({ user: () => 'sure, I would ask about squares', assistant: () => 'x', judge: () => 'x' });
    const s = settings({ user: { temperature: 1, maxTokens: 256, parseRetries: 2 } });
    const r = await build(f, s);
    expect(r).toMatchObject({
      kind: 'build',
      ending: 'simulator-failed',
      simulatorFailures: 1,
      missingScores: 0,
      turns: [],
      conversation: [],
    });
    expect(f.user.calls.map((c) => c.sampleKey)).toEqual(['sq/s0/first', 'sq/s0/first/retry-1', 'sq/s0/first/retry-2']);
    expect(f.assistant.calls).toHaveLength(0);
    expect(f.judge.calls).toHaveLength(0);
    expect(r.usage).toEqual({ promptTokens: 30, completionTokens: 15 });
  });

  it('a simulator failing inside a future: that future is failed and left out, counted, and not used for the next message', async () => {
    const f = fakes({
      user: (call) => {
        if (call.sampleKey.endsWith('/first')) return opening();
        const k = keyOf(call.sampleKey);
        // Future 0 fails at its second user message (after a user and an assistant message: the longer one).
        if (k.f === 0 && k.step === 2) return 'not json';
        return userJson(futureUser(k.t!, k.c!, k.f!, k.step!));
      },
      assistant: followUp,
      judge: (call) => judgeJson(keyOf(call.sampleKey).metric!, keyOf(call.sampleKey).c === 1 ? 1 : 0),
    });
    const s = settings({ candidates: 2, futures: 2, window: 3, maxMessages: 3 });
    const r = await build(f, s);
    const best = r.turns[0].candidates[1];
    expect(r.turns[0].best).toBe(1);
    expect(best.futures[0].failed).toContain('user simulator');
    expect(best.futures[0].messages).toHaveLength(2);
    expect(best.futures[0].metrics).toEqual({});
    expect(best).toMatchObject({ score: 2, usedFutures: 1, missingFutures: 1 });
    // Every candidate lost future 0: two failed simulator turns, two missing futures.
    expect(r.simulatorFailures).toBe(2);
    expect(r.missingScores).toBe(2);
    // The next user message comes from the usable future 1, not the failed one.
    expect(r.conversation[2]).toEqual({ role: 'user', content: futureUser(0, 1, 1, 0) });
    // A failed future is never judged.
    expect(f.judge.calls.some((c) => c.sampleKey.includes('/f0/'))).toBe(false);
  });
});

// ---- evaluation ----------------------------------------------------------------------------------------------------

describe('evaluateConversation', () => {
  const evalFakes = (terminateAt?: number) =>
    fakes({
      user: (call) => {
        const step = Number(/\/u(\d+)$/.exec(call.sampleKey)?.[1]);
        if (step === 0) return opening();
        if (step === terminateAt) return userJson(`great, thanks ${TERMINATE}`);
        return userJson(`the number is 12 (${step})`);
      },
      assistant: (call) => (call.sampleKey.endsWith('/a1') ? 'Which number should I square?' : 'It is 144.'),
      judge: (call) => (call.sampleKey.endsWith('/accuracy') ? judgeJson('accuracy', 1) : judgeJson('interactivity', 0.75)),
    });

  it('runs until the simulator ends the chat, then scores success, interactivity and token_amount once', async () => {
    const f = evalFakes(4);
    const s = settings({ maxMessages: 14 });
    const r = await evaluateConversation(TASK, 0, chatsOf(f), s, scoreCtx(f, s));
    expect(r.ending).toBe('terminated');
    expect(r.conversation).toEqual([
      { role: 'user', content: OPENING },
      { role: 'assistant', content: 'Which number should I square?' },
      { role: 'user', content: 'the number is 12 (2)' },
      { role: 'assistant', content: 'It is 144.' },
      { role: 'user', content: 'great, thanks' },
    ]);
    expect(f.user.calls[0].sampleKey).toBe('sq/eval/s0/u0');
    expect(allText(f.user.calls[0])).toContain('(nothing yet');
    expect(Object.keys(r.metrics).sort()).toEqual(['accuracy', 'interactivity', 'token_amount']);
    // 6 + 5 assistant cl100k tokens over the whole conversation.
    expect(r.metrics).toEqual({ accuracy: { score: 1 }, interactivity: { score: 0.75 }, token_amount: { score: 0.011 } });
    expect(f.judge.calls.map((c) => c.sampleKey).sort()).toEqual(['sq/eval/s0/judge/accuracy', 'sq/eval/s0/judge/interactivity']);
    // The accuracy judge gets the question, the ground truth and the whole conversation.
    const acc = allText(f.judge.calls.find((c) => c.sampleKey.endsWith('/accuracy'))!);
    expect(acc).toContain(`## Question\n${TASK.prompt}`);
    expect(acc).toContain(`## Ground-truth answer\n${TASK.answer}`);
    expect(acc).toContain('**User**: hi, I need help with a square');
    expect(acc).toContain('**User**: great, thanks');
    expect(acc).toContain('**Assistant**: It is 144.');
    for (const call of f.assistant.calls) expect(allText(call)).not.toContain('HIDDEN-GOAL');
    expect(r.usage).toEqual({ promptTokens: 10 * allCalls(f).length, completionTokens: 5 * allCalls(f).length });
    expect(r).toMatchObject({ kind: 'eval', taskId: 'sq', sampleIndex: 0, simulatorFailures: 0 });
  });

  it('stops at maxMessages when the simulator never ends the chat', async () => {
    const f = evalFakes();
    const s = settings({ maxMessages: 4 });
    const r = await evaluateConversation(TASK, 2, chatsOf(f), s, scoreCtx(f, s));
    expect(r.ending).toBe('max-messages');
    expect(r.conversation.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(f.judge.calls).toHaveLength(2);
    expect(f.user.calls.map((c) => c.sampleKey)).toEqual(['sq/eval/s2/u0', 'sq/eval/s2/u2']);
  });

  it('a simulator failing at once: simulator-failed, nothing to score', async () => {
    const f = fakes({ user: () => 'no json', assistant: () => 'x', judge: () => 'x' });
    const s = settings();
    const r = await evaluateConversation(TASK, 0, chatsOf(f), s, scoreCtx(f, s));
    expect(r).toMatchObject({ ending: 'simulator-failed', simulatorFailures: 1, conversation: [], metrics: {} });
    expect(f.judge.calls).toHaveLength(0);
  });
});

// ---- training data from hand-written records -------------------------------------------------------------------

const msg = (role: 'user' | 'assistant', content: string): ChatMessage => ({ role, content });
const future = (messages: ChatMessage[], metrics: Future['metrics'], failed?: string): Future => ({
  messages,
  terminated: false,
  metrics,
  ...(failed ? { failed } : {}),
});
const cand = (completion: string, score?: number, perMetric: Record<string, number> = {}, futures: Future[] = []): Candidate => ({
  completion,
  ...(score !== undefined ? { score } : {}),
  usedFutures: futures.length,
  missingFutures: 0,
  perMetric,
  futures,
});
const turnOf = (prompt: ChatMessage[], candidates: Candidate[]): CollabTurn => {
  let best: number | undefined;
  candidates.forEach((c, i) => {
    if (c.score !== undefined && (best === undefined || c.score > candidates[best].score!)) best = i;
  });
  return { prompt, candidates, ...(best !== undefined ? { best } : {}) };
};
const rec = (taskId: string, sampleIndex: number, turns: CollabTurn[]): CollabBuildRecord => ({
  kind: 'build',
  taskId,
  sampleIndex,
  turns,
  conversation: [],
  ending: 'max-messages',
  simulatorFailures: 0,
  missingScores: 0,
  usage: { promptTokens: 0, completionTokens: 0 },
});
const P1 = [msg('user', 'hi')];
const P3 = [msg('user', 'hi'), msg('assistant', 'hello, what do you need?'), msg('user', 'a square')];

describe('collabSftExamples', () => {
  it('per conversation, the last state’s best candidate with its prompt, in (task, sample) order', () => {
    const records = [
      rec('b', 0, [turnOf(P1, [cand('b0-early', 0.9), cand('x', 0.1)]), turnOf(P3, [cand('b0-low', 0.2), cand('b0-last', 0.6)])]),
      rec('a', 1, [turnOf(P1, [cand('a1-last', 0.5), cand('a1-tie', 0.5)])]),
      rec('a', 0, [turnOf(P1, [cand('x', 0.1), cand('a0-first', 0.3)]), turnOf(P3, [cand('a0-last', 0.4), cand('y', undefined)])]),
    ];
    expect(collabSftExamples(records, { minGap: 0.02 })).toEqual([
      { taskId: 'a', sampleIndex: 0, turn: 3, messages: P3, completion: 'a0-last' },
      { taskId: 'a', sampleIndex: 1, turn: 1, messages: P1, completion: 'a1-last' },
      { taskId: 'b', sampleIndex: 0, turn: 3, messages: P3, completion: 'b0-last' },
    ]);
  });

  it('sftFloor keeps a conversation iff its best candidate’s metric reaches the floor (equal is kept)', () => {
    const records = [
      rec('at-floor', 0, [turnOf(P1, [cand('keep', 0.9, { accuracy: 0.5 })])]),
      rec('below', 0, [turnOf(P1, [cand('drop', 0.9, { accuracy: 0.4999 })])]),
      rec('no-metric', 0, [turnOf(P1, [cand('drop too', 0.9, { interactivity: 1 })])]),
      rec('above', 0, [turnOf(P1, [cand('keep too', 0.9, { accuracy: 1 })])]),
      // The floor reads the best candidate, not the best metric value among the candidates.
      rec('other-has-it', 0, [turnOf(P1, [cand('best but wrong', 0.9, { accuracy: 0 }), cand('right', 0.1, { accuracy: 1 })])]),
    ];
    const out = collabSftExamples(records, { minGap: 0, sftFloor: { metric: 'accuracy', min: 0.5 } });
    expect(out.map((e) => e.completion)).toEqual(['keep too', 'keep']);
    expect(collabSftExamples(records, { minGap: 0 })).toHaveLength(5);
  });
});

describe('collabPreferencePairs', () => {
  it('per state, chosen = highest, rejected = lowest (first on ties); unscored candidates take no part', () => {
    const records = [
      rec('t', 0, [
        turnOf(P1, [cand('low-first', 0.2), cand('high-first', 0.9), cand('unscored'), cand('low-second', 0.2), cand('high-second', 0.9)]),
        turnOf(P3, [cand('unscored-a'), cand('mid', 0.5), cand('unscored-b'), cand('top', 0.8)]),
      ]),
    ];
    expect(collabPreferencePairs(records, { minGap: 0.02 })).toEqual([
      { taskId: 't', sampleIndex: 0, turn: 1, messages: P1, chosen: 'high-first', rejected: 'low-first' },
      { taskId: 't', sampleIndex: 0, turn: 3, messages: P3, chosen: 'top', rejected: 'mid' },
    ]);
  });

  it('drops states with fewer than 2 scored candidates and states whose candidates all tie', () => {
    const records = [
      rec('t', 0, [turnOf(P1, [cand('only scored', 0.7), cand('u1'), cand('u2')]), turnOf(P3, [cand('same', 0.4), cand('same too', 0.4)])]),
    ];
    expect(collabPreferencePairs(records, { minGap: 0 })).toEqual([]);
  });

  it('minGap: a gap equal to minGap is kept, a smaller one dropped', () => {
    // Exactly representable numbers, so the boundary is the comparison's and not rounding's.
    const pair = (hi: number, lo: number) => rec('t', 0, [turnOf(P1, [cand('chosen', hi), cand('rejected', lo)])]);
    expect(collabPreferencePairs([pair(0.75, 0.5)], { minGap: 0.25 })).toHaveLength(1);
    expect(collabPreferencePairs([pair(0.75, 0.5 + 2 ** -20)], { minGap: 0.25 })).toHaveLength(0);
    expect(collabPreferencePairs([pair(-0.25, -0.5)], { minGap: 0.25 })).toHaveLength(1);
    // The seed's default gap.
    expect(collabPreferencePairs([pair(0.52, 0.5)], { minGap: 0.02 })).toHaveLength(1);
    expect(collabPreferencePairs([pair(0.515, 0.5)], { minGap: 0.02 })).toHaveLength(0);
  });

  it('orders pairs by (task, sample) then state', () => {
    const two = (id: string, s: number) => rec(id, s, [turnOf(P1, [cand(`${id}${s}+`, 1), cand(`${id}${s}-`, 0)])]);
    const out = collabPreferencePairs([two('b', 0), two('a', 10), two('a', 2)], { minGap: 0.02 });
    expect(out.map((p) => p.chosen)).toEqual(['a2+', 'a10+', 'b0+']);
  });
});

describe('collabMultiturnRows', () => {
  const M = (acc: number, inter: number) => ({ accuracy: { score: acc }, interactivity: { score: inter } });
  const goodA = future([msg('user', 'fa'), msg('assistant', 'ga')], M(1, 0.8));
  const goodB = future([msg('user', 'fb')], M(0, 0.4));
  const missing = future([msg('user', 'fm')], { accuracy: { missing: 'judge unreadable' }, interactivity: { score: 0.9 } });
  const failed = future([], {}, 'user simulator: no JSON');
  const TASKS: Record<string, CollabTask> = {
    a: { ...TASK, id: 'a', prompt: 'What is 12 squared?' },
    b: { ...TASK, id: 'b', prompt: 'What is 3 cubed?', answer: '\\boxed{27}' },
  };
  const records = [
    rec('b', 0, [turnOf(P1, [cand('b-c0', 0.1, { accuracy: 0, interactivity: 0.2 }, [goodB])])]),
    rec('a', 1, [
      turnOf(P1, [cand('a1-c0', 0.5, { accuracy: 0.5, interactivity: 0.6 }, [goodA, missing, failed, goodB]), cand('a1-unscored')]),
      turnOf(P3, [cand('a1-t1', 0.3, { accuracy: 0, interactivity: 0.4 }, [goodB])]),
    ]),
    rec('a', 0, [turnOf(P1, [cand('a0-c0', 1, { accuracy: 1, interactivity: 0.8 }, [goodA])])]),
  ];
  const rows = () => collabMultiturnRows(records, (id) => TASKS[id]).map((r) => JSON.parse(r) as Record<string, unknown>);

  it('one row per scored candidate with exactly the published fields', () => {
    const out = rows();
    expect(out.map((r) => r.completion)).toEqual(['a0-c0', 'a1-c0', 'a1-t1', 'b-c0']);
    for (const r of out)
      expect(Object.keys(r).sort()).toEqual(
        [
          'completion',
          'conv_id',
          'prompt',
          'rewards',
          'score',
          'sessions',
          'single_turn_completion',
          'single_turn_metadata',
          'single_turn_prompt',
          'turn_id',
        ].sort(),
      );
  });

  it('conv_id numbers conversations in (task, sample) order; turn_id is the prompt length; rewards list usable futures', () => {
    const out = rows();
    expect(out.map((r) => [r.conv_id, r.turn_id, r.score])).toEqual([
      [0, 1, 1],
      [1, 1, 0.5],
      [1, 3, 0.3],
      [2, 1, 0.1],
    ]);
    const a1 = out[1];
    expect(a1.prompt).toEqual(P1);
    expect(a1.single_turn_prompt).toBe('What is 12 squared?');
    expect(a1.single_turn_completion).toBe(TASK.answer);
    expect(a1.single_turn_metadata).toEqual({ task_id: 'a', sample: 1 });
    // Usable futures only (not the failed one, not the one with a missing metric), in order.
    expect(a1.sessions).toEqual([goodA.messages, goodB.messages]);
    expect(a1.rewards).toEqual({ accuracy: [1, 0], interactivity: [0.8, 0.4] });
    expect(out[3]).toMatchObject({
      single_turn_prompt: 'What is 3 cubed?',
      single_turn_completion: '\\boxed{27}',
      rewards: { accuracy: [0], interactivity: [0.4] },
    });
    // An unknown task: nulls, not a crash.
    const unknown = JSON.parse(collabMultiturnRows([records[2]], () => undefined)[0]);
    expect(unknown).toMatchObject({
      single_turn_prompt: null,
      single_turn_completion: null,
      single_turn_metadata: { task_id: 'a', sample: 0 },
    });
  });

  it('math rows read back as tasks (shape (c) of tasks.ts): one task per conversation', () => {
    const back = parseCollabTasks(collabMultiturnRows(records, (id) => TASKS[id]).join('\n'), 'rows.jsonl', 'math');
    expect(back.map((t) => [t.id, t.prompt, t.answer])).toEqual([
      ['conv-0', 'What is 12 squared?', TASK.answer],
      ['conv-1', 'What is 12 squared?', TASK.answer],
      ['conv-2', 'What is 3 cubed?', '\\boxed{27}'],
    ]);
  });

  it('code rows carry the published single_turn_completion package, so they read back as code tasks', () => {
    // BUG (data.ts, collabMultiturnRows: `single_turn_completion: task?.answer`): for a code task the published rows (and tasks.ts shape (c))
    // put a JSON string {dataset, task_id, test, entry_point, answer} in single_turn_completion; the rows here carry
    // the bare answer and drop the unit tests, so they neither match the released -bigcodebench data nor load back.
    const test =
      'import unittest\n\nclass TestCases(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(task_func(1), 2)\n';
    const code: CollabTask = {
      id: 'BigCodeBench/7',
      kind: 'code',
      description: 'code generation',
      prompt: 'Write task_func(x) returning x + 1.',
      answer: 'def task_func(x):\n    return x + 1\n',
      code: { entryPoint: 'task_func', test },
    };
    const lines = collabMultiturnRows(
      [rec(code.id, 0, [turnOf(P1, [cand('def task_func(x): return x + 1', 1, { pass_rate: 1 })])])],
      () => code,
    );
    const back = parseCollabTasks(lines.join('\n'), 'rows.jsonl', 'code');
    expect(back).toEqual([{ ...code, id: 'conv-0' }]);
  });
});

// ---- the simulated policy: rewards track quality -----------------------------------------------------------------

describe('buildConversation with the SIMULATED policy', () => {
  it('a skilled policy (0.9) gets higher-reward best candidates than an unskilled one (0.1), same seed', async () => {
    const tasks = loadCollabTasks('configs/tasks/collabllm/math.jsonl', 'math').slice(0, 4);
    expect(tasks).toHaveLength(4);
    const s = settings({
      maxMessages: 6,
      candidates: 2,
      futures: 2,
      window: 2,
      weights: DEFAULT_WEIGHTS.math,
      proactive: false,
      user: { temperature: 1, maxTokens: 256, parseRetries: 3 },
      judge: { maxTokens: 256, parseRetries: 3 },
      seed: 5,
    });
    const run = async (skill: number) => {
      const policy = createCollabSimulatedPolicy({ tasks, skill });
      const records: CollabBuildRecord[] = [];
      for (const task of tasks) {
        const chats = simulatedCollabChats(policy);
        const score: ScoreContext = {
          task,
          judge: chats.judge,
          extractor: chats.extractor,
          parseRetries: 3,
          maxTokens: 256,
          prompts: s.prompts,
        };
        const r = await buildConversation(task, 0, chats, s, score);
        records.push(r);
      }
      const best = records.flatMap((r) => r.turns.filter((t) => t.best !== undefined).map((t) => t.candidates[t.best!]));
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      return { records, best, meanBest: mean(best.map((c) => c.score!)), meanAccuracy: mean(best.map((c) => c.perMetric.accuracy)) };
    };
    const hi = await run(0.9);
    const lo = await run(0.1);
    expect(hi.best.length).toBeGreaterThan(0);
    expect(lo.best.length).toBeGreaterThan(0);
    expect(hi.meanBest).toBeGreaterThan(lo.meanBest + 0.2);
    expect(hi.meanAccuracy).toBeGreaterThan(lo.meanAccuracy + 0.5);
    // Deterministic: the same seed gives the same records.
    const again = await run(0.9);
    expect(again.records).toEqual(hi.records);
  });
});
