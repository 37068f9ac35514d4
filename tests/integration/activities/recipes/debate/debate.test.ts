// Debate, piece by piece on fixtures written here: task files, answer reading, the vote (clusters, names, ties),
// the protocol with scripted agents (synchronous rounds, roles, summaries), the metrics, and the consensus-selected
// data of generators and critics.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatCall } from '../../../../../activities/llm/types';
import {
  baselineTrainingData,
  debateMetrics,
  debateTrainingData,
  DEFAULT_DEBATE_PROMPTS,
  firstRoundPrompt,
  loadDebateTasks,
  majorityVote,
  parseAnswer,
  parseDebateTasks,
  runDebate,
  type DebateRecord,
  type DebateTask,
} from '../../../../../activities/recipes/debate';
import type { TaskFileError } from '../../../../../activities/recipes/task-file';
import { CONFIGS } from '../../../../helpers/config';
import { cli } from '../../../../helpers/cli';
import { scripted } from '../../../../helpers/debate';
import { debateRecipeSchema } from '../../../../../activities/recipes/debate/config';
import { debateRecipe } from '../../../../../activities/recipes/debate/recipe';
import { shape } from '../../../../../activities/recipes/debate/config';
import { tempStateDir } from '../../../../helpers/config';
import { writeFileSync } from 'node:fs';
import { debateRuntime } from '../../../../../activities/recipes/debate/runtime';
import { builtRows, streamedBuild } from '../../../../helpers/streamed-build';

const TASKS = path.join(CONFIGS, 'tasks/debate');

describe('task files', () => {
  it("reads MATH (gold = the solution's last box), GSM8K (after ####) and multiple choice (letters)", () => {
    const math = loadDebateTasks(path.join(TASKS, 'math.jsonl'), 'math');
    expect(math[0]).toMatchObject({ id: 'math-00', gold: '\\frac{5}{6}' });
    expect(math[2].gold).toBe('5\\sqrt{2}');
    const gsm = loadDebateTasks(path.join(TASKS, 'gsm8k.jsonl'), 'gsm8k');
    expect(gsm[4]).toMatchObject({ gold: '40' });
    const mc = loadDebateTasks(path.join(TASKS, 'mmlu.jsonl'), 'mmlu');
    expect(mc[0].problem).toContain('(B) Mercury');
    expect(mc[0].gold).toBe('B');
    expect(parseDebateTasks('{"question": "q", "choices": ["a", "b", "c"], "answer": 2}', 'x.jsonl', 'mmlu')[0].gold).toBe('C');
  });

  it('a bad row is one error naming file, line and field', () => {
    const bad = (text: string, d: 'math' | 'gsm8k' | 'mmlu') => {
      try {
        parseDebateTasks(text, 't.jsonl', d);
      } catch (e) {
        return e as TaskFileError;
      }
    };
    expect(bad('{"problem": "p", "solution": "no box"}', 'math')?.message).toBe(
      't.jsonl line 1: field "solution" has no \\boxed{} answer (or give an "answer" field)',
    );
    expect(bad('\n{"question": "q", "answer": "#### "}', 'gsm8k')?.message).toBe('t.jsonl line 2: field "answer" has nothing after "####"');
    expect(bad('{"question": "q", "options": ["a", "b"], "answer": "E"}', 'mmlu')?.message).toBe(
      't.jsonl line 1: field "answer" must be an option letter (A–B) or a 0-based index',
    );
  });
});

describe('answers and the vote', () => {
  it('reads the last box; letters for multiple choice; numbers without commas or dollars', () => {
    expect(parseAnswer('math', 'first \\boxed{1} then \\boxed{\\frac{1}{2}}')).toBe('\\frac{1}{2}');
    expect(parseAnswer('math', 'no box here')).toBeUndefined();
    expect(parseAnswer('gsm8k', 'so \\boxed{\\$1,000}')).toBe('1000');
    expect(parseAnswer('mmlu', '- reasons\nThe answer is \\boxed{(c)}')).toBe('C');
    expect(parseAnswer('mmlu', 'I think the answer is (B).')).toBe('B');
  });

  it('clusters equivalent answers under the first-seen name', () => {
    const v = majorityVote('math', ['0.5', '\\frac{1}{2}', '2', undefined, '1/2'], 'fixed');
    expect(v.answer).toBe('0.5');
    expect(v.clusters).toEqual([
      { answer: '0.5', count: 3, agents: [0, 1, 4] },
      { answer: '2', count: 1, agents: [2] },
    ]);
  });

  it('breaks ties toward the lexicographically largest name, whatever the order', () => {
    expect(majorityVote('math', ['12', '9'], 'fixed').answer).toBe('9');
    expect(majorityVote('math', ['9', '12'], 'fixed').answer).toBe('9');
    expect(majorityVote('mmlu', ['A', 'C', 'B'], 'fixed').answer).toBe('C');
    expect(majorityVote('math', [undefined, undefined], 'fixed').answer).toBeUndefined();
  });
});

const TASK: DebateTask = { id: 't1', dataset: 'math', problem: 'What is 2+3?', gold: '5' };
const decoding = { temperature: 1, topP: 0.9, maxTokens: 64 };

describe('the protocol', () => {
  it("round 0 answers independently; round 1 sees only the other agents' round-0 answers (synchronous)", async () => {
    const calls: Array<{ role: string; call: ChatCall }> = [];
    const chats = scripted(
      { generator_0: ['5'], generator_1: ['6'], generator_2: ['7'], critic_0: ['5'], critic_1: ['5'], critic_2: ['7'] },
      calls,
    );
    const r = await runDebate({
      task: TASK,
      prompts: DEFAULT_DEBATE_PROMPTS,
      sampleIndex: 0,
      agents: 3,
      rounds: 2,
      summarize: false,
      others: { shuffle: true, max: 5 },
      chats,
      decoding,
      seed: 1,
      compat: 'fixed',
    });
    expect(calls.map((c) => c.role).sort()).toEqual(['critic_0', 'critic_1', 'critic_2', 'generator_0', 'generator_1', 'generator_2']);
    for (const c of calls.filter((x) => x.role.startsWith('generator')))
      expect(c.call.messages).toEqual([{ role: 'user', content: firstRoundPrompt(DEFAULT_DEBATE_PROMPTS, 'math', TASK.problem) }]);
    const critic1 = calls.find((c) => c.role === 'critic_1')!.call.messages;
    const shown = critic1[2].content as string;
    expect(shown).toContain('\\boxed{5}');
    expect(shown).toContain('\\boxed{7}');
    expect(shown).not.toContain('\\boxed{6}'); // its own answer is not listed as another agent's
    expect(critic1[1]).toEqual({ role: 'assistant', content: '- step\n\\boxed{6}' }); // its own history
    expect(r.agents.map((a) => a.answers)).toEqual([
      ['5', '5'],
      ['6', '5'],
      ['7', '7'],
    ]);
    expect(r.roundVotes.map((v) => v.answer)).toEqual(['7', '5']); // round 0: a three-way tie → largest name
    expect(r.correct).toBe(true);
    expect(r.usage).toEqual({ promptTokens: 60, completionTokens: 30 });
    // Distinct seeds per call: agents sampling the same prompt do not get the same cached answer.
    expect(new Set(calls.map((c) => c.call.decoding.seed)).size).toBe(6);
  });

  it("summarised rounds: one summariser call per agent over the others' answers; a lone agent double-checks", async () => {
    const calls: Array<{ role: string; call: ChatCall }> = [];
    const chats = scripted({ generator_0: ['1'], generator_1: ['2'], critic_0: ['2'], critic_1: ['2'], summarizer: [] }, calls);
    const r = await runDebate({
      task: TASK,
      prompts: DEFAULT_DEBATE_PROMPTS,
      sampleIndex: 0,
      agents: 2,
      rounds: 2,
      summarize: true,
      others: { shuffle: true, max: 5 },
      chats,
      decoding,
      seed: 1,
      compat: 'fixed',
    });
    const summaries = calls.filter((c) => c.role === 'summarizer');
    expect(summaries).toHaveLength(2);
    expect(
      summaries.map((s) => s.call.messages[0].content as string).some((m) => m.includes('\\boxed{1}') && !m.includes('\\boxed{2}')),
    ).toBe(true);
    expect(r.summaries?.[1]).toHaveLength(2);
    const lone: Array<{ role: string; call: ChatCall }> = [];
    await runDebate({
      task: TASK,
      prompts: DEFAULT_DEBATE_PROMPTS,
      sampleIndex: 0,
      agents: 1,
      rounds: 2,
      summarize: true,
      others: { shuffle: true, max: 5 },
      chats: scripted({ generator_0: ['4'], critic_0: ['5'] }, lone),
      decoding,
      seed: 1,
      compat: 'fixed',
    });
    expect(lone.map((c) => c.role)).toEqual(['generator_0', 'critic_0']);
    expect(lone[1].call.messages[2].content).toContain('Check your solution above');
  });
});

/** A finished debate from answers per agent per round (gold 5). */
function record(taskId: string, answers: Array<Array<string | undefined>>, sampleIndex = 0): DebateRecord {
  const agents = answers.map((rounds) => ({
    messages: rounds.flatMap((a, k) => [
      { role: 'user' as const, content: `q${k}` },
      { role: 'assistant' as const, content: a === undefined ? 'no idea' : `\\boxed{${a}}` },
    ]),
    answers: rounds,
  }));
  const roundVotes = answers[0].map((_, k) =>
    majorityVote(
      'math',
      answers.map((a) => a[k]),
      'fixed',
    ),
  );
  return {
    taskId,
    sampleIndex,
    agents,
    roundVotes,
    gold: '5',
    correct: roundVotes.at(-1)!.answer === '5',
    usage: { promptTokens: 3, completionTokens: 2 },
  };
}

describe('metrics', () => {
  const records = [
    record('a', [
      ['5', '5'],
      ['4', '5'],
      ['4', '4'],
    ]), // vote 5, right
    record('b', [
      ['3', '3'],
      ['3', '3'],
      ['2', '2'],
    ]), // vote 3, wrong
    record('c', [
      [undefined, undefined],
      [undefined, undefined],
      [undefined, undefined],
    ]), // nobody answered
  ];
  it('vote accuracy, per agent, per round and consensus; no-answer problems count as wrong', () => {
    const m = debateMetrics(records, { dataset: 'math', compat: 'fixed' });
    expect(m).toMatchObject({ accuracy: 1 / 3, debates: 3, answered: 3, no_answer_rate: 1 / 3, total_tokens: 15 });
    expect(m.agent_0_accuracy).toBeCloseTo(1 / 3);
    expect(m.agent_2_accuracy).toBe(0);
    expect(m.round_0_accuracy).toBe(0); // round 0 of 'a' voted 4
    expect(m.round_1_accuracy).toBeCloseTo(1 / 3);
    expect(m.consensus_rate).toBeCloseTo((2 / 3 + 2 / 3 + 0) / 3);
  });
  it("compat: seed leaves no-answer problems out, as the seed's eval_math.py", () => {
    expect(debateMetrics(records, { dataset: 'math', compat: 'seed' })).toMatchObject({ accuracy: 0.5, answered: 2 });
  });
});

describe('training data (no gold labels)', () => {
  it('generators keep consensus-agreeing round-0 answers; critics keep consensus-agreeing finals, corrected before maintained', () => {
    const records = [
      record('a', [
        ['5', '5'],
        ['4', '5'],
        ['4', '4'],
      ]),
      record('b', [
        ['3', '3'],
        ['3', '3'],
        ['2', '3'],
      ]),
      record('c', [
        ['7', '7'],
        ['8', '7'],
        ['9', '9'],
      ]),
    ];
    const d = debateTrainingData(records, { dataset: 'math', maintainedPerCorrected: 0.5, seed: 1, compat: 'fixed' });
    expect(d.examples.generator_0.map((e) => e.taskId)).toEqual(['a', 'b', 'c']);
    expect(d.examples.generator_1.map((e) => e.taskId)).toEqual(['b']);
    expect(d.examples.generator_2).toEqual([]);
    // critic_1 corrected twice (a: 4→5, c: 8→7): both kept, plus round(2 × 0.5) = 1 maintained (b).
    expect(d.counts).toMatchObject({
      critic_1_corrected: 2,
      critic_1_maintained: 1,
      critic_0_corrected: 0,
      critic_0_maintained: 0,
      critic_2_corrected: 1,
    });
    expect(d.examples.critic_1.map((e) => e.taskId)).toEqual(['a', 'c', 'b']);
    const ex = d.examples.critic_1[0];
    expect(ex.messages.map((m) => m.content)).toEqual(['q0', '\\boxed{4}', 'q1']); // the whole debate as context
    expect(ex.completion).toBe('\\boxed{5}');
    // The gold never decides: the same debates with another gold give the same data.
    const regolded = records.map((r) => ({ ...r, gold: '3', correct: false }));
    expect(debateTrainingData(regolded, { dataset: 'math', maintainedPerCorrected: 0.5, seed: 1, compat: 'fixed' })).toEqual(d);
  });
});

describe('the streamed data build', () => {
  it('writes the rows buildData returns as debates arrive in plan order, the kept maintained critics at the end', () => {
    // Task-index order (c, a, b) is not id order; every agent keeps something, critic_1 corrects twice.
    const records = [
      record('c', [
        ['7', '7'],
        ['8', '7'],
        ['9', '9'],
      ]),
      record(
        'c',
        [
          ['7', '7'],
          ['7', '7'],
          ['9', '7'],
        ],
        1,
      ),
      record('a', [
        ['5', '5'],
        ['4', '5'],
        ['4', '4'],
      ]),
      record(
        'a',
        [
          ['5', '5'],
          ['5', '5'],
          ['4', '5'],
        ],
        1,
      ),
      record('b', [
        ['3', '3'],
        ['3', '3'],
        ['2', '3'],
      ]),
    ];
    for (const [mode, compat] of [
      ['debate', 'fixed'],
      ['debate', 'seed'],
      ['star', 'fixed'],
      ['majority_ft', 'fixed'],
    ] as const) {
      const cfg = debateRecipeSchema.parse({
        name: 'debate',
        dataset: 'math',
        evalTasks: 'x.jsonl',
        mode,
        compat,
        data: { maintainedPerCorrected: 1 },
      });
      const runtime = debateRuntime(cfg, 3, 'trl');
      const built = runtime.buildData([...records].reverse());
      const streamed = streamedBuild(runtime, records);
      expect(streamed.rows).toEqual(builtRows(built));
      expect(streamed.counts).toEqual(built.counts);
      // Rows are written as their debate arrives, not once every debate is in (star: c's never reach the gold 5).
      expect(streamed.firstRowAt).toBe(mode === 'star' ? 2 : 0);
    }
  });
});

describe('compat: seed critic data (lm_ft.py trains on every assistant turn)', () => {
  it('each kept critic debate gives one example per round, the rounds before it as context; the selection is the same', () => {
    const records = [
      record('a', [
        ['5', '5'],
        ['4', '5'],
        ['4', '4'],
      ]),
      record('b', [
        ['3', '3'],
        ['3', '3'],
        ['2', '3'],
      ]),
    ];
    const fixed = debateTrainingData(records, { dataset: 'math', maintainedPerCorrected: 1, seed: 1, compat: 'fixed' });
    const seed = debateTrainingData(records, { dataset: 'math', maintainedPerCorrected: 1, seed: 1, compat: 'seed' });
    // The same debates are kept; each gives one row per round.
    expect(seed.counts).toEqual({
      ...fixed.counts,
      critic_0_examples: 2 * fixed.counts.critic_0_examples,
      critic_1_examples: 4,
      critic_2_examples: 2 * fixed.counts.critic_2_examples,
    });
    expect(fixed.counts.critic_1_examples).toBe(2);
    expect(seed.examples.generator_1).toEqual(fixed.examples.generator_1);
    // critic_1: a corrected (4 → 5) and b maintained (3 → 3): two rounds each.
    expect(fixed.examples.critic_1.map((e) => [e.taskId, e.turn])).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    expect(seed.examples.critic_1.map((e) => [e.taskId, e.turn, e.messages.map((m) => m.content), e.completion])).toEqual([
      ['a', 0, ['q0'], '\\boxed{4}'],
      ['a', 1, ['q0', '\\boxed{4}', 'q1'], '\\boxed{5}'],
      ['b', 0, ['q0'], '\\boxed{3}'],
      ['b', 1, ['q0', '\\boxed{3}', 'q1'], '\\boxed{3}'],
    ]);
  });
});

describe('the single-model baselines (majority_ft, star)', () => {
  const records = [
    record('a', [['5'], ['4'], ['4']]), // vote 4, gold 5
    record('b', [['5'], ['5'], [undefined]]), // vote 5, gold 5
  ];
  it('majority_ft keeps the answers that agree with the vote, never asking the gold; star keeps the right ones', () => {
    const majority = baselineTrainingData(records, { dataset: 'math', keep: 'vote', compat: 'fixed' });
    expect(Object.keys(majority.examples)).toEqual(['generator_0']);
    expect(majority.examples.generator_0.map((e) => [e.taskId, e.completion])).toEqual([
      ['a', '\\boxed{4}'],
      ['a', '\\boxed{4}'],
      ['b', '\\boxed{5}'],
      ['b', '\\boxed{5}'],
    ]);
    expect(majority.counts).toEqual({ generator_0_examples: 4 });
    const regolded = records.map((r) => ({ ...r, gold: '4' }));
    expect(baselineTrainingData(regolded, { dataset: 'math', keep: 'vote', compat: 'fixed' })).toEqual(majority);
    const star = baselineTrainingData(records, { dataset: 'math', keep: 'gold', compat: 'fixed' });
    expect(star.examples.generator_0.map((e) => e.taskId)).toEqual(['a', 'b', 'b']);
    expect(star.examples.generator_0[0].messages).toEqual([{ role: 'user', content: 'q0' }]);
  });

  it('one model answers N times: every call is generator_0, the only trained role; the vote is the answer', async () => {
    const cfg = debateRecipeSchema.parse({ name: 'debate', dataset: 'math', evalTasks: 'x.jsonl', mode: 'star', agents: 4 });
    expect(shape(cfg)).toEqual({ agents: 4, rounds: 1 });
    expect(debateRecipe.roles(cfg)).toEqual({ generator_0: 'trained' });
    expect(debateRecipe.roles({ ...cfg, mode: 'majority' })).toMatchObject({ generator_3: 'trained' });
    const calls: Array<{ role: string; call: ChatCall }> = [];
    const r = await runDebate({
      task: TASK,
      prompts: DEFAULT_DEBATE_PROMPTS,
      sampleIndex: 0,
      agents: 4,
      rounds: 1,
      summarize: false,
      others: { shuffle: true, max: 5 },
      oneModel: true,
      chats: scripted({ generator_0: ['5', '5', '6', '5'] }, calls),
      decoding,
      seed: 1,
      compat: 'fixed',
    });
    expect(calls.map((c) => c.role)).toEqual(['generator_0', 'generator_0', 'generator_0', 'generator_0']);
    expect(new Set(calls.map((c) => c.call.decoding.seed)).size).toBe(4); // four samples, not one cached answer
    expect(r.roundVotes[0].answer).toBe('5');
  });
});

describe('collab-loop score --recipe debate', () => {
  it("prints each record's answers, vote and correctness; a bad line is one error", async () => {
    const dir = tempStateDir();
    const file = path.join(dir, 'votes.jsonl');
    writeFileSync(
      file,
      [
        // Bare answers, given as such.
        JSON.stringify({ answers: [{ answer: '\\frac{1}{2}' }, { answer: 0.5 }, { answer: '3' }], answer: '1/2' }),
        JSON.stringify({ answers: ['The answer is \\boxed{7}.', '- so \\boxed{8}'], answer: 7 }),
      ].join('\n'),
    );
    const r = await cli(['score', '--recipe', 'debate', '--dataset', 'math', '--input', file]);
    expect(r.exitCode, r.all).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toEqual({
      answers: ['\\frac{1}{2}', '0.5', '3'],
      vote: '\\frac{1}{2}',
      clusters: [
        { answer: '\\frac{1}{2}', count: 2 },
        { answer: '3', count: 1 },
      ],
      correct: true,
    });
    expect(lines[1]).toMatchObject({ vote: '8', correct: false }); // 7 vs 8 tie → the larger name
    writeFileSync(file, '{"answers": "5", "answer": "5"}\n');
    const bad = await cli(['score', '--recipe', 'debate', '--dataset', 'math', '--input', file]);
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.trim()).toBe(
      `collab-loop: ${file} line 1: field "answers" must be a list of the agents' replies (strings) or bare answers ({"answer": …})`,
    );
    writeFileSync(file, '{"answers": ["\\\\boxed{5}", {"value": "5"}], "answer": "5"}\n');
    const badItem = await cli(['score', '--recipe', 'debate', '--dataset', 'math', '--input', file]);
    expect(badItem.exitCode).not.toBe(0);
    expect(badItem.stderr.trim()).toBe(
      `collab-loop: ${file} line 1: field "answers" item 2 must be an agent's reply (a string) or a bare answer ({"answer": …})`,
    );
  });

  it('a reply without \\boxed{} is no answer, as in the loop and the seed: it never joins the vote', async () => {
    const file = path.join(tempStateDir(), 'votes.jsonl');
    writeFileSync(file, `${JSON.stringify({ answers: ['The answer is 12.', 'The answer is 12.', '- so \\boxed{5}'], answer: 5 })}\n`);
    const r = await cli(['score', '--recipe', 'debate', '--dataset', 'math', '--input', file]);
    expect(r.exitCode, r.all).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ answers: [null, null, '5'], vote: '5', clusters: [{ answer: '5', count: 1 }], correct: true });
  });
});
