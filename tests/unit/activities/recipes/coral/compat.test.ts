// Every behaviour where `compat: seed` reproduces the seed's released code and `compat: fixed` corrects it.
import { describe, expect, it } from 'vitest';
import {
  agentRequestSeed,
  CORAL_PROMPTS,
  answersAgree,
  coralMetrics,
  DEFAULT_CORAL_PROMPTS,
  matchesGold,
  parseExtractorReply,
  runCoralConversation,
  type CoralConversation,
  type CoralTask,
  STUDENT_VIEW_PREAMBLE,
} from '../../../../../activities/recipes/coral';
import { defaultTexts, promptsOf } from '../../../../../activities/recipes/prompt-texts';
import { scriptedChat } from '../../../../helpers/coral';

const tom = (gold: string): CoralTask => ({ id: 't', dataset: 'explore_tom', story: 'S', question: 'Q', gold });
const valid = (answer: string) => ({ answer, valid: true, unsure: false });

describe('compat: fixed vs seed', () => {
  it('MATH agreement: grader equivalence (fixed) vs raw string equality (seed)', () => {
    expect(answersAgree('math', valid('\\frac12'), valid('0.5'), 'fixed')).toBe(true);
    expect(answersAgree('math', valid('\\frac12'), valid('0.5'), 'seed')).toBe(false);
    expect(answersAgree('math', valid('7'), valid('7'), 'seed')).toBe(true);
    expect(answersAgree('math', valid('7'), valid('8'), 'fixed')).toBe(false);
  });

  it('ToM normalisation: "the" as a whole word (fixed) vs every substring (seed)', () => {
    expect(parseExtractorReply('explore_tom', 'The other desk', 'fixed').answer).toBe('other desk');
    expect(parseExtractorReply('explore_tom', 'The other desk', 'seed').answer).toBe('or desk');
    const task = tom('other desk');
    expect(matchesGold(task, parseExtractorReply('explore_tom', 'The other desk', 'fixed'), 'fixed')).toBe(true);
    expect(matchesGold(task, parseExtractorReply('explore_tom', 'The other desk', 'seed'), 'seed')).toBe(false);
  });

  it('ToM gold: normalised like the prediction (fixed) vs compared raw (seed)', () => {
    const task = tom('Basket');
    expect(matchesGold(task, valid('basket'), 'fixed')).toBe(true);
    expect(matchesGold(task, valid('basket'), 'seed')).toBe(false);
  });

  it('empty extraction: invalid (fixed) vs valid and matching every ToM gold (seed)', () => {
    // (The seed's prefix is exactly "Short Answer: ", trailing space included.)
    const fixed = parseExtractorReply('explore_tom', 'Short Answer: ', 'fixed');
    const seed = parseExtractorReply('explore_tom', 'Short Answer: ', 'seed');
    expect(fixed).toEqual({ answer: '', valid: false, unsure: false });
    expect(seed).toEqual({ answer: '', valid: true, unsure: false });
    expect(matchesGold(tom('basket'), fixed, 'fixed')).toBe(false);
    expect(matchesGold(tom('basket'), seed, 'seed')).toBe(true);
    // Two empty MATH boxes "agree" under the seed.
    const box = (c: 'fixed' | 'seed') => parseExtractorReply('math', '$\\boxed{}$', c);
    expect(answersAgree('math', box('seed'), box('seed'), 'seed')).toBe(true);
    expect(answersAgree('math', box('fixed'), box('fixed'), 'fixed')).toBe(false);
  });

  it('final_success_rate: final answer correct (fixed) vs any turn correct (seed)', () => {
    // Teacher right, then both agree on a wrong answer.
    const rec: CoralConversation = {
      taskId: 'q',
      dataset: 'mmlu_pro',
      sampleIndex: 0,
      mode: 'coral',
      system: 's',
      maxTurns: 20,
      agreed: true,
      finalAnswer: 'A',
      correct: false,
      usage: { promptTokens: 0, completionTokens: 0 },
      calls: 6,
      turns: [
        { role: 'student', content: 'question' },
        { role: 'teacher', content: 't1', extracted: 'C', valid: true, correct: true },
        { role: 'student', content: 's2', extracted: 'A', valid: true, correct: false },
        { role: 'teacher', content: 't3', extracted: 'A', valid: true, correct: false, agreement: true },
      ],
    };
    expect(coralMetrics([rec], 'fixed').final_success_rate).toBe(0);
    expect(coralMetrics([rec], 'seed').final_success_rate).toBe(1);
    expect(coralMetrics([rec], 'seed').agreement_correctness).toBe(0);
  });

  it('per-request seed: derived per (seed, sample, turn) (fixed) vs 42 on every request (seed)', async () => {
    expect(agentRequestSeed(7, 0, 1, 'fixed')).not.toBe(agentRequestSeed(7, 1, 1, 'fixed'));
    expect(agentRequestSeed(7, 0, 1, 'fixed')).not.toBe(agentRequestSeed(7, 0, 2, 'fixed'));
    expect(agentRequestSeed(7, 0, 1, 'fixed')).toBe(agentRequestSeed(7, 0, 1, 'fixed'));
    const task: CoralTask = { id: 'q', dataset: 'mmlu_pro', question: 'Q?', options: ['a', 'b'], gold: 'A' };
    for (const compat of ['fixed', 'seed'] as const) {
      const agent = scriptedChat(['Final answer: (A)', 'Final answer: (B)']);
      const extractor = scriptedChat(['(A)', '(B)']);
      await runCoralConversation({
        task,
        prompts: DEFAULT_CORAL_PROMPTS,
        agent,
        extractor,
        sampleIndex: 3,
        mode: 'coral',
        maxTurns: 2,
        beamSize: 1,
        seed: 7,
        compat,
        agentDecoding: { temperature: 0.8, maxTokens: 64, seed: 1 },
        extractorDecoding: { temperature: 0, maxTokens: 32 },
      });
      const seeds = agent.calls.map((c) => c.decoding.seed);
      const extractorSeeds = extractor.calls.map((c) => c.decoding.seed);
      if (compat === 'seed') {
        expect(seeds).toEqual([42, 42]);
        expect(extractorSeeds).toEqual([42, 42]);
      } else {
        expect(seeds).toEqual([agentRequestSeed(7, 3, 1, 'fixed'), agentRequestSeed(7, 3, 2, 'fixed')]);
        expect(extractorSeeds).toEqual([undefined, undefined]);
      }
    }
  });

  const mc: CoralTask = { id: 'q', dataset: 'mmlu_pro', question: 'Q?', options: ['a', 'b'], gold: 'A' };
  const converse = async (compat: 'fixed' | 'seed', prompts = DEFAULT_CORAL_PROMPTS) => {
    const agent = scriptedChat(['Final answer: (A)', 'Final answer: (A)']);
    const extractor = scriptedChat(['(A)', '(A)']);
    await runCoralConversation({
      task: mc,
      prompts,
      agent,
      extractor,
      sampleIndex: 0,
      mode: 'coral',
      maxTurns: 2,
      beamSize: 1,
      seed: 7,
      compat,
      agentDecoding: { temperature: 0.8, maxTokens: 64 },
      extractorDecoding: { temperature: 0, maxTokens: 32 },
    });
    return { agent, extractor };
  };

  it("student's view: a user preamble first (fixed) vs its own opening first, as the seed sends it (seed)", async () => {
    const roles = async (compat: 'fixed' | 'seed') => (await converse(compat)).agent.calls[1].messages.map((m) => m.role);
    expect(await roles('fixed')).toEqual(['system', 'user', 'assistant', 'user']);
    expect((await converse('fixed')).agent.calls[1].messages[1].content).toBe(STUDENT_VIEW_PREAMBLE);
    expect(await roles('seed')).toEqual(['system', 'assistant', 'user']);
  });

  it("extraction request: as written (fixed) vs written over the extractor's system prompt, whose tail stays (seed)", async () => {
    const system = 'Say which option the reply commits to, as (X); if it commits to none, say "not sure yet".';
    const prompts = promptsOf(CORAL_PROMPTS, {
      ...defaultTexts(CORAL_PROMPTS),
      'extractor.system': system,
      'extractor.mmlu_pro': '{question}|{options}|{response}',
    });
    const request = 'Q?|(A) a\n(B) b|Final answer: (A)';
    const sent = async (compat: 'fixed' | 'seed') => (await converse(compat, prompts)).extractor.calls[0].messages;
    expect(await sent('fixed')).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: request },
    ]);
    // The seed writes its request into a StringIO opened with the system prompt (extraction_evaluators.py).
    expect((await sent('seed'))[1].content).toBe(request + system.slice(request.length));
  });
});
