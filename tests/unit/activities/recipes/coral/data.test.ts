import { describe, expect, it } from 'vitest';
import {
  agentView,
  buildPreferencePairs,
  buildSftExamples,
  createCoralSimulatedPolicy,
  DEFAULT_CORAL_PROMPTS,
  runCoralConversation,
  STUDENT_VIEW_PREAMBLE,
  type CoralConversation,
} from '../../../../../activities/recipes/coral';
import { formatPreferences, formatSft } from '../../../../../activities/data/formats';
import { renderLlama31 } from '../../../../../activities/data/chat-template';
import { fixtureTasks, simulatedChat } from '../../../../helpers/coral';

// One agreed, correct conversation whose first turn was tree-sampled.
const record: CoralConversation = {
  taskId: 'q',
  dataset: 'mmlu_pro',
  sampleIndex: 0,
  mode: 'coral',
  system: 'SYS',
  maxTurns: 20,
  agreed: true,
  finalAnswer: 'C',
  correct: true,
  usage: { promptTokens: 0, completionTokens: 0 },
  calls: 6,
  turns: [
    { role: 'student', content: 'Q' },
    {
      role: 'teacher',
      content: 'T1 (C)',
      extracted: 'C',
      valid: true,
      correct: true,
      siblings: [{ role: 'teacher', content: 'alt (A)', extracted: 'A', valid: true, correct: false }],
    },
    { role: 'student', content: 'S2 (C)', extracted: 'C', valid: true, correct: true, agreement: true },
  ],
};
const teacherPrompt = [
  { role: 'system', content: 'SYS' },
  { role: 'user', content: 'Q' },
];
const LLAMA_PROMPT =
  '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\nSYS<|eot_id|>' +
  '<|start_header_id|>user<|end_header_id|>\n\nQ<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n';

describe('SFT examples', () => {
  it("every generated turn of a correctly agreed conversation, from the speaker's view", () => {
    const ex = buildSftExamples([record]);
    expect(ex).toEqual([
      { taskId: 'q', sampleIndex: 0, turn: 1, messages: teacherPrompt, completion: 'T1 (C)' },
      {
        taskId: 'q',
        sampleIndex: 0,
        turn: 2,
        completion: 'S2 (C)',
        messages: [
          { role: 'system', content: 'SYS' },
          { role: 'user', content: STUDENT_VIEW_PREAMBLE },
          { role: 'assistant', content: 'Q' },
          { role: 'user', content: 'T1 (C)' },
        ],
      },
    ]);
  });

  it("skips conversations without a correct agreement unless all_turns (the seed's actual default) is asked", () => {
    const wrong = { ...record, taskId: 'w', turns: record.turns.map((t, i) => (i === 2 ? { ...t, correct: false } : t)) };
    const unagreed = { ...record, taskId: 'u', agreed: false };
    expect(buildSftExamples([wrong, unagreed])).toEqual([]);
    expect(buildSftExamples([wrong, unagreed], { selection: 'all_turns' })).toHaveLength(4);
  });

  it('caps examples per task', () => {
    const samples = [0, 1, 2].map((sampleIndex) => ({ ...record, sampleIndex }));
    expect(buildSftExamples(samples, { maxPerTask: 3 }).map((e) => `${e.sampleIndex}/${e.turn}`)).toEqual(['0/1', '0/2', '1/1']);
  });
});

describe('preference pairs', () => {
  it('pairs a correct candidate with an incorrect one under the identical prefix', () => {
    expect(buildPreferencePairs([record])).toEqual([
      { taskId: 'q', sampleIndex: 0, turn: 1, messages: teacherPrompt, chosen: 'T1 (C)', rejected: 'alt (A)' },
    ]);
  });

  it('from simulated tree sampling: valid pairs, caps respected, deterministic, independent of record order', async () => {
    const tasks = fixtureTasks('mmlu_pro');
    const chat = simulatedChat(createCoralSimulatedPolicy({ tasks, skill: 0.5, agreeability: 0.4 }));
    const records: CoralConversation[] = [];
    for (const task of tasks.slice(0, 10))
      for (const sampleIndex of [0, 1])
        records.push(
          await runCoralConversation({
            task,
            prompts: DEFAULT_CORAL_PROMPTS,
            agent: chat,
            extractor: chat,
            sampleIndex,
            mode: 'coral',
            maxTurns: 6,
            beamSize: 4,
            seed: 3,
            compat: 'fixed',
            agentDecoding: { temperature: 0.8, maxTokens: 256 },
            extractorDecoding: { temperature: 0, maxTokens: 32 },
          }),
        );
    const pairs = buildPreferencePairs(records, { maxPairsPerTurn: 2, maxPerTask: 5, seed: 1 });
    expect(pairs.length).toBeGreaterThan(5);
    const perTurn = new Map<string, number>();
    const perTask = new Map<string, number>();
    for (const p of pairs) {
      const r = records.find((x) => x.taskId === p.taskId && x.sampleIndex === p.sampleIndex)!;
      const t = r.turns[p.turn];
      const candidates = [t, ...t.siblings!];
      expect(candidates.find((c) => c.content === p.chosen)?.correct).toBe(true);
      expect(candidates.find((c) => c.content === p.rejected)?.correct).toBe(false);
      expect(p.messages).toEqual(agentView(r.system, r.turns.slice(0, p.turn), t.role, STUDENT_VIEW_PREAMBLE));
      const k = `${p.taskId}/${p.sampleIndex}/${p.turn}`;
      perTurn.set(k, (perTurn.get(k) ?? 0) + 1);
      perTask.set(p.taskId, (perTask.get(p.taskId) ?? 0) + 1);
    }
    expect(Math.max(...perTurn.values())).toBeLessThanOrEqual(2);
    expect(Math.max(...perTask.values())).toBeLessThanOrEqual(5);
    expect(buildPreferencePairs([...records].reverse(), { maxPairsPerTurn: 2, maxPerTask: 5, seed: 1 })).toEqual(pairs);
    expect(buildPreferencePairs(records, { maxPairsPerTurn: 2, maxPerTask: 5, seed: 2 })).not.toEqual(pairs);
  });
});

describe('training file formats', () => {
  const sft = buildSftExamples([record]).slice(0, 1);
  const pairs = buildPreferencePairs([record]);

  it('renders the Llama-3.1 chat template as fairseq2 needs it', () => {
    expect(renderLlama31(teacherPrompt as never)).toBe(LLAMA_PROMPT);
  });

  it('fairseq2: {src, tgt} and {src, tgt_chosen, tgt_rejected}', () => {
    expect(formatSft(sft, 'fairseq2')).toEqual([JSON.stringify({ src: LLAMA_PROMPT, tgt: 'T1 (C)', id: 'q/s0/t1' })]);
    expect(formatPreferences(pairs, 'fairseq2')).toEqual([
      JSON.stringify({ src: LLAMA_PROMPT, tgt_chosen: 'T1 (C)', tgt_rejected: 'alt (A)', id: 'q/s0/t1' }),
    ]);
  });

  it('openrlhf: messages ending in the target; prompt + chosen/rejected message lists', () => {
    expect(JSON.parse(formatSft(sft, 'openrlhf')[0])).toEqual({ messages: [...teacherPrompt, { role: 'assistant', content: 'T1 (C)' }] });
    expect(JSON.parse(formatPreferences(pairs, 'openrlhf')[0])).toEqual({
      prompt: teacherPrompt,
      chosen: [{ role: 'assistant', content: 'T1 (C)' }],
      rejected: [{ role: 'assistant', content: 'alt (A)' }],
    });
  });

  it('trl: conversational prompt-completion and preference rows', () => {
    expect(JSON.parse(formatSft(sft, 'trl')[0])).toEqual({ prompt: teacherPrompt, completion: [{ role: 'assistant', content: 'T1 (C)' }] });
    expect(JSON.parse(formatPreferences(pairs, 'trl')[0])).toEqual({
      prompt: teacherPrompt,
      chosen: [{ role: 'assistant', content: 'T1 (C)' }],
      rejected: [{ role: 'assistant', content: 'alt (A)' }],
    });
  });

  it('one JSON object per line, no embedded newlines', () => {
    for (const f of ['fairseq2', 'openrlhf', 'trl'] as const)
      for (const line of [...formatSft(sft, f), ...formatPreferences(pairs, f)]) expect(line).not.toContain('\n');
  });
});
