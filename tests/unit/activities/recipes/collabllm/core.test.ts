// CollabLLM's pure core with scripted chats: the lenient JSON reader, the user simulator (opening message, goal
// isolation, re-asks, failure, termination), every metric (judges incl. unreadable output, token amount, BLEU against
// nltk's numbers, extraction, pass rate) and both reward aggregations with excluded futures.
import { describe, expect, it } from 'vitest';
import type { Chat, ChatCall, ChatMessage } from '../../../../../activities/llm/types';
import { parseJsonReply } from '../../../../../activities/recipes/collabllm/json-reply';
import {
  accuracyJudge,
  bleu,
  extractFinal,
  interactivityJudge,
  passRate,
  tokenAmount,
  type MetricOutcome,
} from '../../../../../activities/recipes/collabllm/metrics';
import {
  DEFAULT_COLLABLLM_PROMPTS,
  PROACTIVE_SYSTEM_PROMPT,
  renderConversation,
  stripThink,
  TERMINATE,
} from '../../../../../activities/recipes/collabllm/prompts';
import { cl100kTokens } from '../../../../../activities/recipes/collabllm/tokens';
import { multiturnReward, type FutureOutcome } from '../../../../../activities/recipes/collabllm/reward';
import { simulateUserTurn } from '../../../../../activities/recipes/collabllm/user-simulator';

/** A Chat answering from a script (a function of the call, or a list consumed in order), recording every call. */
function scripted(replies: string[] | ((call: ChatCall, i: number) => string)): Chat & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    const i = calls.length - 1;
    const text = typeof replies === 'function' ? replies(call, i) : replies[i];
    if (text === undefined) throw new Error(`no reply scripted for call ${i}`);
    return { texts: [text], finishReasons: ['stop'], usage: { promptTokens: 10, completionTokens: 5 }, cached: false };
  };
  return Object.assign(chat, { calls });
}

const allText = (call: ChatCall) => call.messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
const userJson = (response: string, thought = 'hmm') => JSON.stringify({ current_answer: '', thought, response });
const score = (o: MetricOutcome) => ('score' in o ? o.score : undefined);

describe('parseJsonReply', () => {
  it('reads a fenced object with prose around it, ignoring braces in the prose', () => {
    const reply = 'Sure, for {name} see below.\n```json\n{"thought": "ok", "accuracy": 1}\n```\nHope that helps {x}.';
    expect(parseJsonReply(reply)).toEqual({ thought: 'ok', accuracy: 1 });
    expect(parseJsonReply('text before {"a": {"b": [1, 2]}} text after')).toEqual({ a: { b: [1, 2] } });
  });

  it('tolerates trailing commas, raw newlines in strings and Python literals', () => {
    expect(parseJsonReply('{"a": [1, 2,], "b": "x",\n}')).toEqual({ a: [1, 2], b: 'x' });
    expect(parseJsonReply('{"response": "line one\nline two\tend"}')).toEqual({ response: 'line one\nline two\tend' });
    expect(parseJsonReply('{"ok": True, "v": None}')).toEqual({ ok: true, v: null });
  });

  it('takes triple-quoted strings verbatim (code keeps its quotes and backslashes)', () => {
    const reply = '{"thought": "merged", "final_completion": """def f(s):\n    return s.split("\\n")\n"""}';
    expect(parseJsonReply(reply)?.final_completion).toBe('def f(s):\n    return s.split("\\n")\n');
  });

  it('keeps LaTeX backslashes and unescaped inner quotes rather than failing', () => {
    expect(parseJsonReply('{"answer": "\\frac{1}{2} and \\(x\\)"}')?.answer).toBe('\\frac{1}{2} and \\(x\\)');
    expect(parseJsonReply('{"response": "he said "hi" to me", "n": 1}')).toEqual({ response: 'he said "hi" to me', n: 1 });
  });

  it('returns undefined for garbage, arrays and unclosed objects', () => {
    expect(parseJsonReply('no json here')).toBeUndefined();
    expect(parseJsonReply('[1, 2, 3]')).toBeUndefined();
    expect(parseJsonReply('{"a": "never closed')).toBeUndefined();
    expect(parseJsonReply('{not: json}')).toBeUndefined();
  });
});

describe('user simulator', () => {
  const task = { description: 'question answering', goal: 'SECRET-GOAL: what is 17 * 23?' };
  const decoding = { temperature: 1, maxTokens: 512, seed: 7 };
  const base = { prompts: DEFAULT_COLLABLLM_PROMPTS, task, decoding };

  it('writes the first message from an empty history, from the JSON response field only', async () => {
    const chat = scripted([userJson('hey, can u help with a multiplication?', 'I must not paste SECRET-GOAL')]);
    const turn = await simulateUserTurn({ ...base, chat, history: [], parseRetries: 2, key: 'c0/u0' });
    expect(turn).toEqual({
      kind: 'message',
      text: 'hey, can u help with a multiplication?',
      usage: { promptTokens: 10, completionTokens: 5 },
    });
    expect(chat.calls).toHaveLength(1);
    expect(chat.calls[0].sampleKey).toBe('c0/u0');
    expect(chat.calls[0].decoding).toEqual(decoding);
    const prompt = allText(chat.calls[0]);
    expect(prompt).toContain(task.goal);
    expect(prompt).toContain(task.description);
    expect(prompt).toContain('write the first message');
  });

  it('the goal reaches only the simulator: the assistant sees responses, never goal, thought or system prompts', async () => {
    // The simulator's private thought quotes the goal: leaking the raw reply would put it in the assistant's view.
    const simulator = scripted((call) => {
      const n = (allText(call).match(/\*\*Assistant\*\*/g) ?? []).length;
      return userJson(n === 0 ? 'need help with some math' : `ok thanks ${TERMINATE}`, `my goal is ${task.goal}`);
    });
    const assistant = scripted(['<think>SCRATCH-17x20</think>Sure, which calculation?']);
    const history: ChatMessage[] = [];
    const first = await simulateUserTurn({ ...base, chat: simulator, history, parseRetries: 0, key: 'u0' });
    expect(first.kind).toBe('message');
    if (first.kind !== 'message') return;
    history.push({ role: 'user', content: first.text });
    const reply = await assistant({
      messages: [{ role: 'system', content: PROACTIVE_SYSTEM_PROMPT }, ...history],
      decoding,
      sampleKey: 'a0',
    });
    history.push({ role: 'assistant', content: reply.texts[0] });
    const second = await simulateUserTurn({ ...base, chat: simulator, history, parseRetries: 0, key: 'u1' });
    expect(second).toMatchObject({ kind: 'terminate', text: 'ok thanks' });

    for (const call of simulator.calls) expect(allText(call)).toContain(task.goal);
    for (const call of assistant.calls) expect(allText(call)).not.toContain('SECRET-GOAL');
    // The simulator reads the history rendered, without the assistant's reasoning.
    const seen = allText(simulator.calls[1]);
    expect(seen).toContain('**User**: need help with some math\n\n**Assistant**: Sure, which calculation?');
    expect(seen).not.toContain('SCRATCH-17x20');
  });

  it('re-asks after unreadable output with new sample keys and seeds, adding up usage', async () => {
    const chat = scripted(['I think I would say hello', '{"thought": "x", "response": ""}', userJson('hello there')]);
    const turn = await simulateUserTurn({ ...base, chat, history: [], parseRetries: 3, key: 'k' });
    expect(turn).toEqual({ kind: 'message', text: 'hello there', usage: { promptTokens: 30, completionTokens: 15 } });
    expect(chat.calls.map((c) => c.sampleKey)).toEqual(['k', 'k/retry-1', 'k/retry-2']);
    const seeds = chat.calls.map((c) => c.decoding.seed);
    expect(seeds[0]).toBe(7);
    expect(new Set(seeds).size).toBe(3);
    expect(chat.calls[1].messages).toEqual(chat.calls[0].messages);
  });

  it('fails after parseRetries + 1 unreadable replies', async () => {
    const chat = scripted(() => 'not json at all');
    const turn = await simulateUserTurn({ ...base, chat, history: [], parseRetries: 2, key: 'k' });
    expect(turn).toMatchObject({ kind: 'failed', attempts: 3, usage: { promptTokens: 30, completionTokens: 15 } });
    expect(turn.kind === 'failed' && turn.reason).toContain('not json at all');
    expect(chat.calls).toHaveLength(3);
  });

  it('the termination token alone ends the chat with empty text; chat errors propagate', async () => {
    const turn = await simulateUserTurn({ ...base, chat: scripted([userJson(TERMINATE)]), history: [], parseRetries: 0, key: 'k' });
    expect(turn).toMatchObject({ kind: 'terminate', text: '' });
    const broken: Chat = async () => {
      throw new Error('503 from server');
    };
    await expect(simulateUserTurn({ ...base, chat: broken, history: [], parseRetries: 5, key: 'k' })).rejects.toThrow('503');
  });
});

describe('metrics', () => {
  const conversation: ChatMessage[] = [
    { role: 'system', content: 'sys prompt words here' },
    { role: 'user', content: 'what is 17*23' },
    { role: 'assistant', content: '<think>17*20=340, 17*3=51</think>It is 391.' },
    { role: 'user', content: 'thanks' },
    { role: 'assistant', content: 'You are welcome, anything else?' },
  ];
  const o = { parseRetries: 1, key: 'c0/f0', prompts: DEFAULT_COLLABLLM_PROMPTS };

  it('accuracy judge: temperature 0, shows the conversation or the extracted answer, reads 0/1', async () => {
    const chat = scripted(['```json\n{"thought": "391 matches", "accuracy": 1}\n```', '{"thought": "wrong", "accuracy": "0"}']);
    const t = { question: '17*23?', groundTruth: '391', conversation };
    expect(await accuracyJudge(chat, t, o)).toEqual({ score: 1, usage: { promptTokens: 10, completionTokens: 5 } });
    expect(score(await accuracyJudge(chat, { ...t, answer: '400' }, o))).toBe(0);
    expect(chat.calls[0]).toMatchObject({ sampleKey: 'c0/f0/accuracy', decoding: { temperature: 0 } });
    expect(allText(chat.calls[0])).toContain('**Assistant**: It is 391.');
    expect(allText(chat.calls[0])).not.toContain('sys prompt');
    expect(allText(chat.calls[1])).toContain('400');
    expect(allText(chat.calls[1])).not.toContain('It is 391');
  });

  it('an unreadable judge is missing after its re-asks, never 0; a re-ask shows the bad reply', async () => {
    const chat = scripted(['I would say it is correct', '{"thought": "hmm", "accuracy": 0.5}']);
    const out = await accuracyJudge(chat, { question: 'q', groundTruth: 'g', conversation }, o);
    expect('missing' in out && out.missing).toContain('accuracy: unreadable reply after 2 attempts');
    expect(out.usage).toEqual({ promptTokens: 20, completionTokens: 10 });
    expect(chat.calls.map((c) => c.sampleKey)).toEqual(['c0/f0/accuracy', 'c0/f0/accuracy/retry-1']);
    expect(chat.calls[1].messages[1]).toEqual({ role: 'assistant', content: 'I would say it is correct' });
    expect(chat.calls[1].decoding.temperature).toBe(0);
    const judge = scripted(() => 'no idea');
    expect('missing' in (await interactivityJudge(judge, { conversation }, { ...o, parseRetries: 0, key: 'k' }))).toBe(true);
    expect(judge.calls.map((c) => c.sampleKey)).toEqual(['k/interactivity']);
  });

  it('interactivity judge clamps to [0, 1] and accepts a fractional score', async () => {
    const chat = scripted([
      '{"thought": "asked well", "interactivity": 0.5}',
      '{"thought": "over", "interactivity": 1.7}',
      '{"thought": "under", "interactivity": -0.2}',
    ]);
    const run = async () => score(await interactivityJudge(chat, { conversation }, o));
    expect([await run(), await run(), await run()]).toEqual([0.5, 1, 0]);
  });

  it('token amount counts cl100k tokens of the assistant from fromIndex on, without reasoning, in thousands', () => {
    // cl100k_base (js-tiktoken 1.0.21): "It is 391." is 5 tokens, "You are welcome, anything else?" 7 (words: 3 and 5).
    expect(tokenAmount(conversation, 0)).toEqual({ score: 0.012 });
    expect(tokenAmount(conversation, 3)).toEqual({ score: 0.007 });
    expect(tokenAmount(conversation, 5)).toEqual({ score: 0 });
  });

  it('token amount under compat: seed counts every assistant message of the conversation, reasoning included', () => {
    const plain = conversation.map((m) => (m.role === 'assistant' ? { ...m, content: stripThink(m.content as string) } : m));
    // The prompt prefix before fromIndex counts too (efficiency.py scores the whole session of a future).
    expect(tokenAmount(plain, 3, 'seed')).toEqual({ score: 0.012 });
    expect(tokenAmount(plain, 5, 'seed')).toEqual({ score: 0.012 });
    // The reasoning block is read as written.
    expect(score(tokenAmount(conversation, 0, 'seed'))).toBeGreaterThan(0.012);
  });

  it('cl100kTokens gives cl100k_base BPE counts (js-tiktoken), not words or pre-tokens', () => {
    expect(cl100kTokens('')).toBe(0);
    expect(cl100kTokens("I'm here.")).toBe(4);
    expect(cl100kTokens('Could you tell me which equation you need solved?')).toBe(10);
    expect(cl100kTokens('def f(x):\n    return x * 2')).toBe(10);
    expect(cl100kTokens('The answer is \\boxed{144}.')).toBe(8);
    // One word, six BPE tokens (a pre-token count says 1).
    expect(cl100kTokens('antidisestablishmentarianism')).toBe(6);
    // disallowed_special=(): special-token text is counted as plain text, not refused.
    expect(cl100kTokens('a <|endoftext|> b')).toBe(8);
  });

  it("BLEU: character-level BLEU-4, values checked against nltk's sentence_bleu", () => {
    expect(score(bleu('hello world', 'hello world'))).toBe(1);
    expect(score(bleu('abcd', 'abcd'))).toBe(1);
    // Identical but shorter than 4 characters: no 4-grams, so no BLEU (nltk: ~1e-77).
    expect(score(bleu('abc', 'abc'))).toBe(0);
    // High unigram overlap but no shared 4-gram (nltk: 7.5e-78).
    expect(score(bleu('abcdefgh', 'abcxefgy'))).toBe(0);
    expect(score(bleu('abc', ''))).toBe(0);
    // All n-gram precisions 1, c = 4 < r = 6: brevity penalty exp(1 − 6/4) = 0.6065306597126334.
    expect(score(bleu('abcdef', 'abcd'))).toBeCloseTo(Math.exp(-0.5), 12);
    // Precisions 4/5, 3/4, 2/3, 1/2, c = r: (0.2)^(1/4) = 0.668740304976422.
    expect(score(bleu('abcde', 'abcdx'))).toBeCloseTo(0.2 ** 0.25, 12);
    // Clipping: precisions 4/6, 3/5, 2/4, 1/3 and c > r: (1/15)^(1/4) = 0.5081327481546147.
    expect(score(bleu('aaaa', 'aaaaaa'))).toBeCloseTo(0.5081327481546147, 12);
    expect(score(bleu('The cat sat on the mat.', 'The cat sat on a mat.'))).toBeCloseTo(0.7869685946580969, 12);
  });

  it('extraction returns the final completion (empty allowed) or missing, with its requirement in the prompt', async () => {
    const chat = scripted([
      '{"thought": "v2 is final", "final_completion": """import math\n\ndef task_func(x):\n    return math.sqrt(x)\n"""}',
      '{"thought": "nothing", "final_completion": ""}',
      'oops',
      '{"thought": "no field"}',
    ]);
    const code = await extractFinal(chat, { conversation, kind: 'code', requirement: 'Define task_func.' }, o);
    expect('text' in code && code.text).toBe('import math\n\ndef task_func(x):\n    return math.sqrt(x)\n');
    expect(chat.calls[0].sampleKey).toBe('c0/f0/extract-code');
    expect(allText(chat.calls[0])).toContain('Define task_func.');
    expect(allText(chat.calls[0])).toContain('no test harness');
    expect(await extractFinal(chat, { conversation, kind: 'document' }, o)).toMatchObject({ text: '' });
    expect(await extractFinal(chat, { conversation, kind: 'answer' }, o)).toMatchObject({
      missing: expect.stringContaining('extract-answer'),
    });
  });

  it('pass rate is 1 iff the injected runner passes, and hands it the code', async () => {
    const seen: string[] = [];
    const runner = async (code: string) => {
      seen.push(code);
      return { passed: code.includes('return') };
    };
    expect(await passRate('def f(): return 1', runner)).toEqual({ score: 1 });
    expect(await passRate('def f(): pass', runner)).toEqual({ score: 0 });
    expect(seen).toEqual(['def f(): return 1', 'def f(): pass']);
  });

  it('renders conversations with roles, no system messages and no think blocks', () => {
    expect(renderConversation(conversation)).toBe(
      '**User**: what is 17*23\n\n**Assistant**: It is 391.\n\n**User**: thanks\n\n**Assistant**: You are welcome, anything else?',
    );
    expect(renderConversation([{ role: 'assistant', content: 'leaked reasoning</think>answer' }])).toBe('**Assistant**: answer');
  });
});

describe('multiturn-aware reward', () => {
  const future = (metrics: Record<string, number | 'missing'>): FutureOutcome => ({
    metrics: Object.fromEntries(
      Object.entries(metrics).map(([k, v]) => [k, v === 'missing' ? { missing: 'judge unreadable' } : { score: v }]),
    ),
  });

  it('weighted-mean: Σ_m w_m·score_m per future, then the mean; a negative weight is a cost', () => {
    const weights = { accuracy: 1, interactivity: 0.5, token_amount: -0.5 };
    // Future 1: 1 + 0.4 − 0.2 = 1.2; future 2: 0 + 0.3 − 0.1 = 0.2; mean 0.7.
    const r = multiturnReward(
      [future({ accuracy: 1, interactivity: 0.8, token_amount: 0.4 }), future({ accuracy: 0, interactivity: 0.6, token_amount: 0.2 })],
      weights,
    );
    expect(r.score).toBeCloseTo(0.7, 12);
    expect(r).toMatchObject({ usedFutures: 2, missingFutures: 0 });
    expect(r.perMetric.accuracy).toBeCloseTo(0.5, 12);
    expect(r.perMetric.interactivity).toBeCloseTo(0.7, 12);
    expect(r.perMetric.token_amount).toBeCloseTo(0.3, 12);
  });

  it('clamped: per metric mean × weight clamped to [−1, 1], summed — differs from weighted-mean when a clamp bites', () => {
    const weights = { accuracy: 2, token_amount: -3 };
    const futures = [future({ accuracy: 1, token_amount: 0.6 }), future({ accuracy: 1, token_amount: 0.2 })];
    // weighted-mean: (2 − 1.8 + 2 − 0.6) / 2 = 0.8. clamped: min(1, 2·1) + max(−1, −3·0.4) = 1 − 1 = 0.
    expect(multiturnReward(futures, weights).score).toBeCloseTo(0.8, 12);
    expect(multiturnReward(futures, weights, 'weighted-mean').score).toBeCloseTo(0.8, 12);
    expect(multiturnReward(futures, weights, 'clamped').score).toBeCloseTo(0, 12);
    // No clamp reached: both aggregations agree (both are linear then): 1·0.5 + (−0.5)·0.3 = 0.35.
    const mild = [future({ accuracy: 1, token_amount: 0.4 }), future({ accuracy: 0, token_amount: 0.2 })];
    expect(multiturnReward(mild, { accuracy: 1, token_amount: -0.5 }, 'clamped').score).toBeCloseTo(0.35, 12);
    expect(multiturnReward(mild, { accuracy: 1, token_amount: -0.5 }).score).toBeCloseTo(0.35, 12);
  });

  it('a future with a missing metric or a failed simulation is excluded, not scored 0', () => {
    const weights = { accuracy: 1, token_amount: -0.5 };
    const futures = [
      future({ accuracy: 1, token_amount: 0.2 }),
      future({ accuracy: 'missing', token_amount: 0.1 }),
      future({ accuracy: 0, token_amount: 0.4 }),
    ];
    // (0.9 + −0.2) / 2 = 0.35, where scoring the missing one as 0 would give (0.9 − 0.05 − 0.2) / 3.
    for (const aggregation of ['weighted-mean', 'clamped'] as const) {
      const r = multiturnReward(futures, weights, aggregation);
      expect(r.score).toBeCloseTo(0.35, 12);
      expect(r).toMatchObject({ usedFutures: 2, missingFutures: 1 });
    }
    const withFailure = multiturnReward([...futures, { failed: 'simulator unreadable' }], weights);
    expect(withFailure).toMatchObject({ usedFutures: 2, missingFutures: 2 });
    expect(withFailure.score).toBeCloseTo(0.35, 12);
  });

  it('with no usable future there is no score', () => {
    const r = multiturnReward([future({ accuracy: 'missing' }), { failed: 'x' }], { accuracy: 1 });
    expect(r).toEqual({ usedFutures: 0, missingFutures: 2, perMetric: {} });
    expect(r.score).toBeUndefined();
    expect(multiturnReward([], { accuracy: 1 }).score).toBeUndefined();
  });

  it('rejects wiring mistakes: no weights, a weighted metric never computed', () => {
    expect(() => multiturnReward([future({ accuracy: 1 })], {})).toThrow('no metric weights');
    expect(() => multiturnReward([future({ accuracy: 1 })], { accuracy: 1, bleu: 1 })).toThrow('no outcome for metric "bleu"');
  });
});
