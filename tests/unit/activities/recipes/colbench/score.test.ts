import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scoreColbenchCodeFile, TaskFileError } from '../../../../../activities/recipes/colbench';
import { backendTasks, textualRunCodeTests } from '../../../../helpers/colbench';

const dir = mkdtempSync(path.join(tmpdir(), 'colbench-score-'));
const write = (name: string, rows: unknown[]) => {
  const file = path.join(dir, name);
  writeFileSync(file, `${rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`);
  return file;
};
const seedTask = {
  problem_description: 'I need a fee.',
  ground_truth: 'def fee(a):\n    return 45 if a < 18 else 120\n',
  test_cases: { t1: 'fee(1)', t2: 'fee(40)' },
};

describe('collab-loop score --recipe colbench-code', () => {
  it("scores the seed's trajectory format, one result per record in file order", async () => {
    const file = write('seed.jsonl', [
      { task: seedTask, dialogue_history: [{ role: 'user', content: 'I need a fee.' }], answer: seedTask.ground_truth },
      { task: { ...seedTask, id: 'named' }, dialogue_history: [], answer: 'def fee(a):\n    return 0' },
      { task: seedTask, dialogue_history: [], answer: 'No answer' },
      '',
      { task: seedTask, dialogue_history: [], answer: `\`\`\`python\n${seedTask.ground_truth}\`\`\``, reward: 0.3 },
    ]);
    const run = textualRunCodeTests();
    const wrong2 = { wrong_value: 2, answer_error: 0, timeout: 0, reference_error: 0 };
    expect(await scoreColbenchCodeFile(file, run)).toEqual([
      { id: 'code-1', success: true, fraction: 1, passed: 2, total: 2 },
      { id: 'named', success: false, fraction: 0, passed: 0, total: 2, reasons: wrong2 },
      { id: 'code-3', success: false, fraction: 0, passed: 0, total: 2, reason: 'no_answer' },
      { id: 'code-5', success: true, fraction: 1, passed: 2, total: 2 },
    ]);
    // "No answer" never reached the sandbox; the fenced answer arrived as written (the runner reads the fence, by
    // the seed's rule under compat: seed).
    expect(run.inputs).toHaveLength(3);
    expect(run.inputs[2].candidate).toBe(`\`\`\`python\n${seedTask.ground_truth}\`\`\``);
  });

  it('scores our own trajectory records against a task file', async () => {
    const tasks = backendTasks();
    const t = tasks.find((x) => x.id === 'bakery-loyalty')!;
    const file = write('ours.jsonl', [
      { taskId: t.id, kind: 'code', sampleIndex: 0, dialogue: [], answer: t.reference },
      { taskId: t.id, answer: null },
    ]);
    expect(await scoreColbenchCodeFile(file, textualRunCodeTests(), { tasks })).toEqual([
      { id: 'bakery-loyalty', success: true, fraction: 1, passed: 7, total: 7 },
      { id: 'bakery-loyalty', success: false, fraction: 0, passed: 0, total: 7, reason: 'no_answer' },
    ]);
  });

  it("keeps a record's own id as written: a number stays a number, a string a string", async () => {
    const file = write('ids.jsonl', [
      { id: 17, task: seedTask, answer: seedTask.ground_truth },
      { id: 'r-2', task: { ...seedTask, id: 4 }, answer: seedTask.ground_truth },
      { task: { ...seedTask, id: 4 }, answer: seedTask.ground_truth },
      { task: seedTask, answer: seedTask.ground_truth },
    ]);
    expect((await scoreColbenchCodeFile(file, textualRunCodeTests())).map((r) => r.id)).toEqual([17, 'r-2', 4, 'code-4']);
    await expect(
      scoreColbenchCodeFile(write('bad-id.jsonl', [{ id: [1], task: seedTask, answer: 'x' }]), textualRunCodeTests()),
    ).rejects.toThrow('line 1: field "id" must be a string or a number');
  });

  it.each([
    [
      [{ task: { ...seedTask, test_cases: 'fee(1)' }, answer: 'x' }],
      'line 1: field "task.test_cases" must be an object mapping test names to Python call expressions',
    ],
    [[{ task: { ...seedTask, ground_truth: '' }, answer: 'x' }], 'line 1: field "task.ground_truth" must be a non-empty string'],
    [
      [
        { task: seedTask, answer: 'x' },
        { task: seedTask, answer: 5 },
      ],
      'line 2: field "answer" must be a string',
    ],
    [[{ task: seedTask, answer: 'x', dialogue_history: 'hi' }], 'line 1: field "dialogue_history" must be a list of messages'],
    [[{ answer: 'x' }], 'line 1: field "task" is missing'],
    [[{ taskId: 'nope', answer: 'x' }], 'line 1: field "taskId" needs a task file (--tasks) to be resolved'],
    [[{ task: 'row', answer: 'x' }], 'line 1: field "task" must be an object'],
    [['{"task": '], 'line 1: the record is not valid JSON'],
    [['[]'], 'line 1: the record must be a JSON object'],
  ] as const)('names file, line and field of a bad record (%#)', async (rows, message) => {
    const file = write('bad.jsonl', [...rows]);
    const run = textualRunCodeTests();
    const err = await scoreColbenchCodeFile(file, run).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TaskFileError);
    expect((err as Error).message).toContain(`${file} ${message}`);
    // A bad file fails before any sandbox run.
    expect(run.inputs).toHaveLength(0);
  });

  it('reports unknown task ids, empty and unreadable files', async () => {
    const tasks = backendTasks();
    await expect(
      scoreColbenchCodeFile(write('unknown.jsonl', [{ taskId: 'nope', answer: 'x' }]), textualRunCodeTests(), { tasks }),
    ).rejects.toThrow('line 1: field "taskId" "nope" is not in the task file');
    await expect(scoreColbenchCodeFile(write('empty.jsonl', ['']), textualRunCodeTests())).rejects.toThrow(
      'empty.jsonl: contains no records',
    );
    await expect(scoreColbenchCodeFile(path.join(dir, 'missing.jsonl'), textualRunCodeTests())).rejects.toThrow(
      'missing.jsonl: cannot be read (ENOENT)',
    );
  });
});
