// Full conversations against the SIMULATED policy (a stand-in for a model server: this machine has no GPU or
// weights), through a fake Chat, plus scripted replies for exact protocol checks.
import { describe, expect, it } from 'vitest';
import {
  createCoralSimulatedPolicy,
  DEFAULT_CORAL_PROMPTS,
  EXTRACTOR_SYSTEM_PROMPT,
  openingMessage,
  runCoralConversation,
  STUDENT_VIEW_PREAMBLE,
  systemPrompt,
  type CoralConversationOptions,
  type CoralDataset,
  type CoralTask,
} from '../../../../../activities/recipes/coral';
import type { Chat } from '../../../../../activities/llm/types';
import { fixtureTasks, scriptedChat, simulatedChat } from '../../../../helpers/coral';

function options(task: CoralTask, agent: Chat, extractor: Chat, o: Partial<CoralConversationOptions> = {}): CoralConversationOptions {
  return {
    task,
    prompts: DEFAULT_CORAL_PROMPTS,
    agent,
    extractor,
    sampleIndex: 0,
    mode: 'coral',
    maxTurns: 8,
    beamSize: 1,
    seed: 11,
    compat: 'fixed',
    agentDecoding: { temperature: 0.8, maxTokens: 256 },
    extractorDecoding: { temperature: 0, maxTokens: 32 },
    ...o,
  };
}

describe('CoRal conversation', () => {
  it.each(['mmlu_pro', 'gpqa', 'math', 'explore_tom', 'hi_tom'] as CoralDataset[])(
    '%s: skilled, agreeable agents agree on the gold answer in two turns',
    async (dataset) => {
      const tasks = fixtureTasks(dataset);
      const policy = createCoralSimulatedPolicy({ tasks, skill: 1, agreeability: 1 });
      for (const task of tasks) {
        const chat = simulatedChat(policy);
        const r = await runCoralConversation(options(task, chat, chat));
        expect(r.turns.map((t) => t.role)).toEqual(['student', 'teacher', 'student']);
        expect(r).toMatchObject({ agreed: true, correct: true, calls: 4, maxTurns: 8 });
        expect(r.turns[2].agreement).toBe(true);
        expect(r.turns[1].agreement).toBeUndefined();
        expect(r.turns.slice(1).every((t) => t.valid && t.correct)).toBe(true);
      }
    },
  );

  it('stops at the first agreement and otherwise runs to max turns', async () => {
    const tasks = fixtureTasks('mmlu_pro');
    const policy = createCoralSimulatedPolicy({ tasks, skill: 0.4, agreeability: 0.3 });
    let agreedCount = 0;
    for (const task of tasks) {
      const chat = simulatedChat(policy);
      const r = await runCoralConversation(options(task, chat, chat, { maxTurns: 6 }));
      const gen = r.turns.slice(1);
      const agreeAt = (i: number) => gen[i].valid && gen[i - 1].valid && gen[i].extracted === gen[i - 1].extracted;
      for (let i = 1; i < gen.length - 1; i++) expect(agreeAt(i)).toBe(false); // it would have stopped there
      if (r.agreed) {
        agreedCount++;
        expect(agreeAt(gen.length - 1)).toBe(true);
        expect(r.finalAnswer).toBe(gen[gen.length - 1].extracted);
      } else {
        expect(gen).toHaveLength(6);
      }
      expect(r.correct).toBe(r.finalAnswer === task.gold);
      expect(r.calls).toBe(2 * gen.length);
    }
    expect(agreedCount).toBeGreaterThan(0);
    expect(agreedCount).toBeLessThan(tasks.length);
  });

  it('sends each agent its own view: system prompt, strict user/assistant alternation, partner last', async () => {
    const task = fixtureTasks('mmlu_pro')[0];
    const agent = scriptedChat(['Final answer: (B)', 'Final answer: (A)', 'Final answer: (C)']);
    const extractor = scriptedChat(['(B)', '(A)', '(C)']);
    const r = await runCoralConversation(options(task, agent, extractor, { maxTurns: 3, sampleIndex: 4 }));
    expect(r.agreed).toBe(false);
    const system = systemPrompt(DEFAULT_CORAL_PROMPTS, 'mmlu_pro', 'assistant_sbs_short');
    expect(agent.calls[0].messages).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: openingMessage(DEFAULT_CORAL_PROMPTS, task) },
    ]);
    // The student asked the question (its own assistant turn), after a short user preamble.
    expect(agent.calls[1].messages).toEqual([
      { role: 'system', content: system },
      { role: 'user', content: STUDENT_VIEW_PREAMBLE },
      { role: 'assistant', content: openingMessage(DEFAULT_CORAL_PROMPTS, task) },
      { role: 'user', content: 'Final answer: (B)' },
    ]);
    expect(agent.calls[2].messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(agent.calls.every((c) => c.sampleKey === 's4' && c.n === 1)).toBe(true);
    // The extractor sees one response at a time, never the conversation.
    expect(extractor.calls[1].messages[0]).toEqual({ role: 'system', content: EXTRACTOR_SYSTEM_PROMPT });
    const extraction = String(extractor.calls[1].messages[1].content);
    expect(extraction).toContain('Final answer: (A)');
    expect(extraction).not.toContain('Final answer: (B)');
    expect(r.usage).toEqual({ promptTokens: 60, completionTokens: 30 });
    expect(r.turns[1]).toMatchObject({
      extracted: 'B',
      extractorReply: '(B)',
      valid: true,
      correct: false,
      usage: { promptTokens: 10, completionTokens: 5 },
    });
  });

  it('an unsure turn never ends the conversation; the final answer is the last valid belief', async () => {
    const task = fixtureTasks('mmlu_pro')[0]; // gold A
    const agent = scriptedChat(['Final answer: (A)', 'Hmm.', 'Final answer: (A)']);
    const extractor = scriptedChat(['(A)', 'not sure yet', '(A)']);
    const r = await runCoralConversation(options(task, agent, extractor, { maxTurns: 3 }));
    expect(r.agreed).toBe(false);
    expect(r.turns[2]).toMatchObject({ valid: false, unsure: true, correct: false });
    expect(r).toMatchObject({ finalAnswer: 'A', correct: true });
  });

  it('CoT mode: one agent turn with the simple_cot prompt', async () => {
    const tasks = fixtureTasks('math');
    const chat = simulatedChat(createCoralSimulatedPolicy({ tasks, skill: 1 }));
    const r = await runCoralConversation(options(tasks[0], chat, chat, { mode: 'cot', maxTurns: 20 }));
    expect(r.turns).toHaveLength(2);
    expect(r).toMatchObject({
      mode: 'cot',
      agreed: false,
      correct: true,
      calls: 2,
      maxTurns: 1,
      system: systemPrompt(DEFAULT_CORAL_PROMPTS, 'math', 'simple_cot'),
    });
    expect(r.turns[1].agreement).toBeUndefined();
  });

  it('tree sampling: n = d candidates per turn, all extracted and matched, one continues, the rest are siblings', async () => {
    const tasks = fixtureTasks('mmlu_pro');
    const policy = createCoralSimulatedPolicy({ tasks, skill: 0.5, agreeability: 0.5 });
    const run = async (task: CoralTask, seed: number) => {
      const chat = simulatedChat(policy);
      const r = await runCoralConversation(options(task, chat, chat, { beamSize: 3, seed, maxTurns: 4 }));
      return { r, chat };
    };
    let differs = 0;
    for (const task of tasks.slice(0, 8)) {
      const { r, chat } = await run(task, 5);
      const gen = r.turns.slice(1);
      for (const t of gen) {
        expect(t.siblings).toHaveLength(2);
        for (const s of t.siblings!) {
          expect(s.role).toBe(t.role);
          expect(s.siblings).toBeUndefined();
          expect(typeof s.valid).toBe('boolean');
          expect(s.correct).toBe(s.extracted === task.gold);
        }
        expect(new Set([t.content, ...t.siblings!.map((s) => s.content)]).size).toBe(3);
      }
      const agentCalls = chat.calls.filter((c) => c.messages[0].content !== EXTRACTOR_SYSTEM_PROMPT);
      expect(agentCalls.every((c) => c.n === 3)).toBe(true);
      expect(r.calls).toBe(gen.length * 4);
      // The pick is seeded by the input: the same input gives the same record.
      expect(JSON.stringify((await run(task, 5)).r)).toBe(JSON.stringify(r));
      if (JSON.stringify((await run(task, 6)).r) !== JSON.stringify(r)) differs++;
    }
    expect(differs).toBeGreaterThan(0);
  });

  it('lets a failed LLM call propagate (the shard retries; nothing is scored as wrong)', async () => {
    const task = fixtureTasks('mmlu_pro')[0];
    const failing: Chat = async () => {
      throw new Error('endpoint down');
    };
    await expect(runCoralConversation(options(task, failing, scriptedChat([])))).rejects.toThrow('endpoint down');
    await expect(runCoralConversation(options(task, scriptedChat(['Final answer: (A)']), failing))).rejects.toThrow('endpoint down');
    await expect(runCoralConversation(options(task, scriptedChat([[]]), scriptedChat([])))).rejects.toThrow('the agent returned no text');
  });
});
