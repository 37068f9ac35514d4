// CollabLLM as its seeds run it (microsoft/CollabLLM 09e5b25, verl-recipe's collabllm): the simulator's goal is the
// single-turn prompt only (the gold only as an opt-in hint), a share of the data loop's candidates is asked through
// the proactive instruction (proact_prompt_ratio), and `compat: seed` takes the seeds' parse retries and judge length.
import { describe, expect, it } from 'vitest';
import { collabllmRecipeSchema } from '../../../../../activities/recipes/collabllm/config';
import {
  buildConversation,
  type CollabChats,
  type CollabSettings,
  scoreContextFor,
  simulateUserFor,
} from '../../../../../activities/recipes/collabllm/conversation';
import { collabPreferencePairs } from '../../../../../activities/recipes/collabllm/data';
import { scoreConversation } from '../../../../../activities/recipes/collabllm/score-conversation';
import { TERMINATE } from '../../../../../activities/recipes/collabllm/prompts';
import { collabSettings } from '../../../../../activities/recipes/collabllm/runtime';
import { createCollabSimulatedPolicy } from '../../../../../activities/recipes/collabllm/simulated-policy';
import { COLLAB_TASK_KINDS, type CollabTask, loadCollabTasks, parseCollabTasks } from '../../../../../activities/recipes/collabllm/tasks';
import { DEFAULT_WEIGHTS, SUCCESS_METRIC } from '../../../../../activities/recipes/collabllm/config';
import { allText, type Scripted, scripted, userJson } from '../../../../helpers/scripted-chat';
import { simulatedCollabChats } from '../../../../helpers/simulated-chat';

const TASK: CollabTask = {
  id: 'sq',
  kind: 'math',
  description: 'question answering',
  prompt: 'What is 12 squared?',
  answer: 'Since 12 * 12 = 144, the answer is \\boxed{144}.',
};

const cfgOf = (o: Record<string, unknown> = {}) =>
  collabllmRecipeSchema.parse({ name: 'collabllm', task: 'math', evalTasks: 'configs/tasks/collabllm/math.jsonl', ...o });

describe("the simulator's goal", () => {
  const ask = async (settings: CollabSettings, task = TASK) => {
    const user = scripted(() => userJson('hi, can you help with a square?'));
    await simulateUserFor(task, user, settings, [], 'k');
    return allText(user.calls[0]);
  };

  it('is the single-turn prompt alone for every task kind: the simulator never sees the gold by default', async () => {
    const s = collabSettings(cfgOf(), 1);
    for (const kind of COLLAB_TASK_KINDS) {
      const text = await ask(s, { ...TASK, kind, answer: 'GOLD-ANSWER-144' });
      expect(text).toContain(TASK.prompt);
      expect(text).not.toContain('GOLD-ANSWER-144');
    }
  });

  it('carries the ground truth as "(Hint: …)" only with user.goalHint', async () => {
    const text = await ask(collabSettings(cfgOf({ user: { goalHint: true } }), 1));
    expect(text).toContain(`${TASK.prompt}(Hint: ${TASK.answer})`);
  });
});

describe('compat: seed takes the seeds’ settings; an explicit field wins', () => {
  it('user and proactive re-asks 3 → 9 (10 attempts), judge tokens 512 → 2048, token count by compat', () => {
    const fixed = collabSettings(cfgOf(), 1);
    const seed = collabSettings(cfgOf({ compat: 'seed' }), 1);
    expect([fixed.user.parseRetries, fixed.proact.parseRetries, fixed.judge.maxTokens]).toEqual([3, 3, 512]);
    expect([seed.user.parseRetries, seed.proact.parseRetries, seed.judge.maxTokens]).toEqual([9, 9, 2048]);
    expect([fixed.judge.parseRetries, fixed.judge.extractRetries, seed.judge.parseRetries, seed.judge.extractRetries]).toEqual([
      3, 3, 49, 0,
    ]);
    const explicit = collabSettings(
      cfgOf({ compat: 'seed', user: { parseRetries: 1 }, proact: { parseRetries: 2 }, judge: { maxTokens: 300 } }),
      1,
    );
    expect([explicit.user.parseRetries, explicit.proact.parseRetries, explicit.judge.maxTokens]).toEqual([1, 2, 300]);
    // The metrics of every conversation count tokens as the mode says (metrics.ts tokenAmount).
    const chats = { judge: scripted(() => ''), extractor: scripted(() => '') };
    expect(scoreContextFor(seed, TASK, chats, undefined)).toMatchObject({ compat: 'seed', maxTokens: 2048 });
    expect(scoreContextFor(fixed, TASK, chats, undefined)).toMatchObject({ compat: 'fixed', maxTokens: 512 });
  });

  it('the simulator is re-asked up to 9 times under seed (10 replies), 3 under fixed', async () => {
    for (const [compat, attempts] of [
      ['seed', 10],
      ['fixed', 4],
    ] as const) {
      const user = scripted(() => 'not JSON');
      const t = await simulateUserFor(TASK, user, collabSettings(cfgOf({ compat }), 1), [], 'k');
      expect(t.kind).toBe('failed');
      expect(user.calls).toHaveLength(attempts);
    }
  });
});

describe('compat: seed re-asks the judges as the seed does', () => {
  it('interactivity judge: 50 attempts under seed, 4 under fixed; extractor: 1 under seed, 4 under fixed', async () => {
    const doc: CollabTask = { ...TASK, kind: 'document', answer: 'The reference article.' };
    const conversation = [
      { role: 'user' as const, content: 'an article please' },
      { role: 'assistant' as const, content: 'Here it is.' },
    ];
    for (const [compat, judged, extracted] of [
      ['seed', 50, 1],
      ['fixed', 4, 4],
    ] as const) {
      const s = collabSettings(cfgOf({ compat, task: 'document' }), 1);
      const judge = scripted(() => 'no JSON here');
      const extractor = scripted(() => 'no JSON either');
      const r = await scoreConversation(
        conversation,
        0,
        ['interactivity', 'bleu'],
        scoreContextFor(s, doc, { judge, extractor }, undefined),
        'k',
      );
      expect(Object.values(r.metrics).every((m) => m && 'missing' in m)).toBe(true);
      expect([judge.calls.length, extractor.calls.length]).toEqual([judged, extracted]);
    }
  });
});

describe('the proactive-prompt mix while building data', () => {
  /** Candidates: a plain one says PLAIN-<c>; a proactive one answers JSON with PROACT-<c> (or nothing readable). */
  function chats(o: { proactReadable?: boolean } = {}) {
    const assistant = scripted((call) => {
      const c = /\/c(\d+)/.exec(call.sampleKey)?.[1];
      if (!call.sampleKey.includes('/proact')) return call.sampleKey.includes('/f') ? 'a future reply' : `PLAIN-${c}`;
      return o.proactReadable === false ? 'sure!' : JSON.stringify({ current_problem: 'p', thought: 't', response: `PROACT-${c}` });
    });
    const user = scripted((call) => (call.sampleKey.endsWith('/first') ? userJson('hi, a square please') : userJson(`fine ${TERMINATE}`)));
    // Interactivity 0.9 for the proactive candidate, 0.2 for a plain one: the pair is (proactive, plain).
    const judge = scripted((call) =>
      call.sampleKey.endsWith('/accuracy')
        ? JSON.stringify({ thought: 'x', accuracy: 0 })
        : JSON.stringify({ thought: 'x', interactivity: allText(call).includes('PROACT-') ? 0.9 : 0.2 }),
    );
    const extractor = scripted(() => '');
    return { assistant, user, judge, extractor } satisfies CollabChats & Record<string, Scripted>;
  }
  const settings = (candidates: number, ratio: number): CollabSettings => ({
    ...collabSettings(cfgOf({ candidates, proact: { ratio, parseRetries: 1 }, weights: { accuracy: 1, interactivity: 1 } }), 7),
    maxMessages: 2,
    futures: 1,
    window: 1,
  });
  const run = (c: ReturnType<typeof chats>, s: CollabSettings) => buildConversation(TASK, 0, c, s, scoreContextFor(s, TASK, c, undefined));

  it('the first ⌊candidates × ratio⌋ candidates are asked through the proactive instruction, their `response` kept', async () => {
    const c = chats();
    const r = await run(c, settings(2, 0.5));
    const [turn] = r.turns;
    expect(turn.candidates.map((x) => [x.completion, x.proact ?? false])).toEqual([
      ['PROACT-0', true],
      ['PLAIN-1', false],
    ]);
    // One request holding the conversation, no system prompt; the JSON's thought fields stay out of the candidate.
    const proactCall = c.assistant.calls.find((x) => x.sampleKey === 'sq/s0/t0/c0/proact')!;
    expect(proactCall.messages).toHaveLength(1);
    expect(proactCall.messages[0].role).toBe('user');
    expect(allText(proactCall)).toContain('**User**: hi, a square please');
    expect(allText(proactCall)).toContain('"current_problem"');
    const plainCall = c.assistant.calls.find((x) => x.sampleKey === 'sq/s0/t0/c1')!;
    expect(plainCall.messages).toEqual([{ role: 'user', content: 'hi, a square please' }]);
    expect(r.conversation[1]).toEqual({ role: 'assistant', content: 'PROACT-0' });
    // Futures are never proactive: only the candidates' own requests go through the instruction.
    expect(c.assistant.calls.filter((x) => x.sampleKey.includes('/proact')).map((x) => x.sampleKey)).toEqual(['sq/s0/t0/c0/proact']);
    const pairs = collabPreferencePairs([r], { minGap: 0.02 });
    expect(pairs.map((p) => [p.chosen, p.rejected])).toEqual([['PROACT-0', 'PLAIN-1']]);
  });

  it('3 candidates at 0.5 → one proactive (int(1.5)); ratio 0 → none; ratio 1 → all', async () => {
    const proactOf = async (n: number, ratio: number) =>
      (await run(chats(), settings(n, ratio))).turns[0].candidates.map((x) => x.proact ?? false);
    expect(await proactOf(3, 0.5)).toEqual([true, false, false]);
    expect(await proactOf(2, 0)).toEqual([false, false]);
    expect(await proactOf(3, 1)).toEqual([true, true, true]);
  });

  it('an unreadable proactive reply is re-asked, then the candidate is missing: no score, no pair, counted', async () => {
    const c = chats({ proactReadable: false });
    const r = await run(c, settings(3, 0.5));
    const [failed, ...rest] = r.turns[0].candidates;
    expect(failed).toMatchObject({ completion: '', proact: true, futures: [] });
    expect(failed.failed).toMatch(/proactive candidate: no JSON object/);
    expect(failed.score).toBeUndefined();
    expect(c.assistant.calls.filter((x) => x.sampleKey.startsWith('sq/s0/t0/c0/proact')).map((x) => x.sampleKey)).toEqual([
      'sq/s0/t0/c0/proact',
      'sq/s0/t0/c0/proact/retry-1',
    ]);
    expect(rest.every((x) => x.score !== undefined)).toBe(true);
    expect(r.missingScores).toBe(1);
    expect(collabPreferencePairs([r], { minGap: 0 }).flatMap((p) => [p.chosen, p.rejected])).not.toContain('');
  });

  it('the simulated policy answers the proactive instruction (dry runs build data with the mix)', async () => {
    const tasks = loadCollabTasks('configs/tasks/collabllm/math.jsonl', 'math').slice(0, 2);
    const policy = createCollabSimulatedPolicy({ tasks, skill: 0.9 });
    const s = { ...collabSettings(cfgOf({ candidates: 2 }), 3), maxMessages: 4, futures: 1, window: 2 };
    for (const task of tasks) {
      const sim = simulatedCollabChats(policy);
      const r = await buildConversation(task, 0, sim, s, scoreContextFor(s, task, sim, undefined));
      const proact = r.turns.flatMap((t) => t.candidates.filter((x) => x.proact));
      expect(proact.length).toBe(r.turns.length);
      for (const x of proact) {
        expect(x.failed).toBeUndefined();
        expect(x.completion).not.toMatch(/current_problem/);
      }
    }
  });
});

describe("Abg-CoQA as a task kind (the seed's generalisation set, examples/single_turn_ds/abg_coqa.py)", () => {
  const FIXTURE = 'tests/fixtures/collabllm/abg-coqa.jsonl';

  it("reads story entries (and the seed's single-turn rows): story + target question as the goal, the label as the answer", () => {
    const tasks = loadCollabTasks(FIXTURE, 'abg-coqa');
    expect(tasks.map((t) => [t.id, t.kind, t.description, t.answer])).toEqual([
      ['abg-1', 'abg-coqa', 'question answering', 'ambiguous'],
      ['abg-2', 'abg-coqa', 'question answering', 'non_ambiguous'],
      ['abg-3', 'abg-coqa', 'question answering', 'ambiguous'],
      ['abg-coqa-4', 'abg-coqa', 'question answering', 'non_ambiguous'],
    ]);
    expect(tasks[0].prompt).toContain('one of the kites got stuck in an oak tree');
    expect(tasks[0].prompt).toContain('What colour was the kite?');
    // The earlier turns stay out (the seed's add_history is off by default), and so does the label.
    expect(tasks[0].prompt).not.toContain('Where did they walk?');
    expect(tasks[0].prompt).not.toMatch(/ambiguous/);
    // A row exported with the seed's adaptor keeps its prompt verbatim.
    expect(tasks[3].prompt).toBe(
      'Can you tell me, from the story below, who fed the cat?\n\nPeter fed the cat every evening while his aunt was away.',
    );
  });

  it('a bad row is one error naming file, line and field', () => {
    const row = (o: Record<string, unknown>) =>
      JSON.stringify({ story: 'A story.', target_turn: { question: 'Who?' }, ambiguity: 'ambiguous', ...o });
    expect(() => parseCollabTasks(row({ ambiguity: 'maybe' }), 'abg.jsonl', 'abg-coqa')).toThrow(
      'abg.jsonl line 1: field "ambiguity" must be one of ambiguous, non_ambiguous',
    );
    expect(() => parseCollabTasks(row({ target_turn: {} }), 'abg.jsonl', 'abg-coqa')).toThrow('field "target_turn.question"');
    expect(() => parseCollabTasks(JSON.stringify({ prompt: 'Q?', answer: 'yes' }), 'abg.jsonl', 'abg-coqa')).toThrow(
      'field "answer" must be one of ambiguous, non_ambiguous',
    );
  });

  it('a config with task: abg-coqa is scored on accuracy against the label; a dry run builds and scores its conversations', async () => {
    const cfg = cfgOf({ task: 'abg-coqa', candidates: 2 });
    expect(SUCCESS_METRIC[cfg.task]).toBe('accuracy');
    expect(DEFAULT_WEIGHTS['abg-coqa']).toEqual({ accuracy: 1, interactivity: 0.5, token_amount: -0.5 });
    const tasks = loadCollabTasks(FIXTURE, 'abg-coqa');
    const policy = createCollabSimulatedPolicy({ tasks, skill: 1 });
    const s = { ...collabSettings(cfg, 2), maxMessages: 6, futures: 1, window: 2 };
    const sim = simulatedCollabChats(policy);
    const r = await buildConversation(tasks[1], 0, sim, s, scoreContextFor(s, tasks[1], sim, undefined));
    const best = r.turns.flatMap((t) => (t.best === undefined ? [] : [t.candidates[t.best]]));
    expect(best.length).toBeGreaterThan(0);
    expect(best.some((c) => c.perMetric.accuracy === 1)).toBe(true);
    // The judge was given the label as the ground truth.
    expect(sim.judge.calls.some((c) => allText(c).includes('## Ground-truth answer\nnon_ambiguous'))).toBe(true);
  });
});
