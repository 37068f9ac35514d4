// CollabLLM task files: our fixture shape, the seed's single-turn rows and the published flat multi-turn rows, for
// every kind; one TaskFileError naming file, line and field for each bad field.
import { describe, expect, it } from 'vitest';
import {
  COLLAB_TASK_KINDS,
  type CollabTaskKind,
  loadCollabTasks,
  parseCollabTasks,
  readCollabSplit,
  TaskFileError,
} from '../../../../../activities/recipes/collabllm/tasks';
import { TaskFileError as SharedTaskFileError } from '../../../../../activities/recipes/task-file';

const TEST = 'import unittest\n\nclass TestCases(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(task_func(1), 2)\n';
const ANSWER = 'def task_func(x):\n    return x + 1\n';
const PKG = { dataset: 'bigcodebench', task_id: 'BigCodeBench/7', test: TEST, entry_point: 'task_func', answer: ANSWER };

const ours = (o: Record<string, unknown> = {}) => JSON.stringify({ id: 't1', prompt: 'P', answer: 'A', ...o });
const oursCode = (o: Record<string, unknown> = {}) => ours({ entry_point: 'task_func', test: TEST, ...o });
const single = (o: Record<string, unknown> = {}) =>
  JSON.stringify({ single_turn_prompt: 'P', single_turn_completion: 'A', single_turn_metadata: { level: 'Level 5' }, ...o });
const singleCode = (o: Record<string, unknown> = {}) => single({ single_turn_completion: JSON.stringify(PKG), ...o });
const multi = (conv: unknown, o: Record<string, unknown> = {}) =>
  JSON.stringify({
    prompt: [{ role: 'user', content: 'hi' }],
    completion: 'Hello! What do you need?',
    conv_id: conv,
    turn_id: 1,
    score: 0.5,
    single_turn_prompt: 'P',
    single_turn_completion: 'A',
    single_turn_metadata: {},
    sessions: [],
    rewards: { MR: [0.5] },
    ...o,
  });

function errorOf(text: string, kind: CollabTaskKind, file = 'tasks.jsonl'): TaskFileError {
  try {
    parseCollabTasks(text, file, kind);
  } catch (err) {
    expect(err).toBeInstanceOf(TaskFileError);
    return err as TaskFileError;
  }
  throw new Error('expected a TaskFileError');
}

describe('CollabLLM task files: the shipped fixtures (our shape)', () => {
  it('math: 8 problems with boxed answers', () => {
    const tasks = loadCollabTasks('configs/tasks/collabllm/math.jsonl', 'math');
    expect(tasks).toHaveLength(8);
    for (const t of tasks) {
      expect(t).toMatchObject({ kind: 'math', description: 'question answering' });
      expect(t.answer, t.id).toMatch(/\\boxed\{.+\}/);
      expect(t.code).toBeUndefined();
    }
    expect(tasks[0]).toMatchObject({ id: 'divisor-sum-36', prompt: 'What is the sum of all positive divisors of $36$?' });
  });

  it('document: 6 articles of 60–120 words, each the tail of its prompt', () => {
    const tasks = loadCollabTasks('configs/tasks/collabllm/document.jsonl', 'document');
    expect(tasks).toHaveLength(6);
    for (const t of tasks) {
      expect(t).toMatchObject({ kind: 'document', description: 'document editing' });
      expect(t.prompt, t.id).toMatch(/^Write a short article under 200 words about .+\.\n\n/);
      expect(t.prompt.endsWith(`\n\n${t.answer}`), t.id).toBe(true);
      const words = t.answer.split(/\s+/).length;
      expect(words, t.id).toBeGreaterThanOrEqual(60);
      expect(words, t.id).toBeLessThanOrEqual(120);
    }
  });

  it('code: 6 BigCodeBench-style tasks whose reference starts from the prompt stub, with 2–4 unit tests', () => {
    const tasks = loadCollabTasks('configs/tasks/collabllm/code.jsonl', 'code');
    expect(tasks).toHaveLength(6);
    for (const t of tasks) {
      expect(t).toMatchObject({ kind: 'code', description: 'code generation', code: { entryPoint: 'task_func' } });
      const stub = /```\n([\s\S]*?)```$/.exec(t.prompt)?.[1];
      expect(stub, t.id).toBeTruthy();
      expect(t.answer.startsWith(stub!), t.id).toBe(true);
      const tests = t.code!.test.match(/^ {4}def test_\w+/gm) ?? [];
      expect(tests.length, t.id).toBeGreaterThanOrEqual(2);
      expect(tests.length, t.id).toBeLessThanOrEqual(4);
    }
  });
});

describe('CollabLLM task files: the three shapes for every kind', () => {
  it('(a) ours: ids from the row or `<kind>-<line>`', () => {
    expect(parseCollabTasks(`${ours({ id: 3 })}\n\n${ours({ id: undefined })}`, 'f', 'math')).toEqual([
      { id: '3', kind: 'math', description: 'question answering', prompt: 'P', answer: 'A' },
      { id: 'math-3', kind: 'math', description: 'question answering', prompt: 'P', answer: 'A' },
    ]);
    expect(parseCollabTasks(ours(), 'f', 'document')).toEqual([
      { id: 't1', kind: 'document', description: 'document editing', prompt: 'P', answer: 'A' },
    ]);
    expect(parseCollabTasks(oursCode(), 'f', 'code')).toEqual([
      { id: 't1', kind: 'code', description: 'code generation', prompt: 'P', answer: 'A', code: { entryPoint: 'task_func', test: TEST } },
    ]);
  });

  it('(b) single-turn rows: math and document take the completion as the answer', () => {
    expect(parseCollabTasks(`${single()}\n${single({ id: 'x' })}`, 'f', 'math')).toEqual([
      { id: 'math-1', kind: 'math', description: 'question answering', prompt: 'P', answer: 'A' },
      { id: 'x', kind: 'math', description: 'question answering', prompt: 'P', answer: 'A' },
    ]);
    expect(parseCollabTasks(single({ single_turn_metadata: undefined }), 'f', 'document')).toEqual([
      { id: 'document-1', kind: 'document', description: 'document editing', prompt: 'P', answer: 'A' },
    ]);
  });

  it('(b) single-turn code rows unpack the JSON completion, named by task_id (the seed fixture)', () => {
    const tasks = loadCollabTasks('tests/fixtures/collabllm/seed-single-turn.jsonl', 'code');
    expect(tasks.map((t) => t.id)).toEqual(['Fixture/0', 'Fixture/1', 'Fixture/2']);
    const ref = loadCollabTasks('configs/tasks/collabllm/code.jsonl', 'code');
    tasks.forEach((t, i) => {
      expect(t).toEqual({ ...ref[i], id: `Fixture/${i}` });
    });
    // An already-decoded package is accepted too; without a task_id the line names the row.
    expect(parseCollabTasks(singleCode({ single_turn_completion: { ...PKG, task_id: undefined } }), 'f', 'code')).toEqual([
      {
        id: 'code-1',
        kind: 'code',
        description: 'code generation',
        prompt: 'P',
        answer: ANSWER,
        code: { entryPoint: 'task_func', test: TEST },
      },
    ]);
  });

  it('(c) multi-turn rows: one task per conv_id, the first row of each (the seed fixture)', () => {
    const tasks = loadCollabTasks('tests/fixtures/collabllm/seed-multiturn.jsonl', 'math');
    expect(tasks.map((t) => t.id)).toEqual(['conv-0', 'conv-7']);
    const ref = loadCollabTasks('configs/tasks/collabllm/math.jsonl', 'math');
    expect(tasks[0]).toEqual({ ...ref.find((t) => t.id === 'banana-arrangements')!, id: 'conv-0' });
    expect(tasks[1]).toEqual({ ...ref.find((t) => t.id === 'two-pow-100-mod-7')!, id: 'conv-7' });
  });

  it('(c) multi-turn rows for document and code, interleaved conversations, string conv_ids', () => {
    const doc = [multi(2), multi(5, { single_turn_prompt: 'Q' }), multi(2, { turn_id: 3 }), multi('a')].join('\n');
    expect(parseCollabTasks(doc, 'f', 'document').map((t) => [t.id, t.prompt])).toEqual([
      ['conv-2', 'P'],
      ['conv-5', 'Q'],
      ['conv-a', 'P'],
    ]);
    const code = [multi(1, { single_turn_completion: JSON.stringify(PKG) }), multi(1, { single_turn_completion: JSON.stringify(PKG) })];
    expect(parseCollabTasks(code.join('\n'), 'f', 'code')).toEqual([
      {
        id: 'conv-1',
        kind: 'code',
        description: 'code generation',
        prompt: 'P',
        answer: ANSWER,
        code: { entryPoint: 'task_func', test: TEST },
      },
    ]);
  });

  it('shapes may be mixed in one file; ids must still be unique across them', () => {
    expect(parseCollabTasks([ours(), single({ id: 's' }), multi(4)].join('\n'), 'f', 'math').map((t) => t.id)).toEqual([
      't1',
      's',
      'conv-4',
    ]);
    expect(errorOf([multi(0), ours({ id: 'conv-0' })].join('\n'), 'math').message).toBe(
      'tasks.jsonl line 2: field "id" "conv-0" is used by an earlier row',
    );
  });

  it('readCollabSplit reads each split file once and applies the limit', () => {
    const cfg = { evalTasks: 'configs/tasks/collabllm/math.jsonl', trainTasks: 'tests/fixtures/collabllm/seed-multiturn.jsonl', limit: 3 };
    expect(readCollabSplit(cfg, 'eval', 'math').map((t) => t.id)).toEqual([
      'divisor-sum-36',
      'three-or-five-not-both',
      'two-pow-100-mod-7',
    ]);
    expect(readCollabSplit(cfg, 'train', 'math').map((t) => t.id)).toEqual(['conv-0', 'conv-7']);
    expect(readCollabSplit({ evalTasks: cfg.evalTasks }, 'train', 'math')).toEqual([]);
    expect(COLLAB_TASK_KINDS).toEqual(['math', 'document', 'code', 'abg-coqa']);
  });
});

describe('CollabLLM task files: errors', () => {
  it('are the shared TaskFileError, naming file, line and field', () => {
    expect(TaskFileError).toBe(SharedTaskFileError);
    const e = errorOf([ours({ id: 'a' }), ours({ id: 'b', answer: '' })].join('\n'), 'math');
    expect(e.message).toBe('tasks.jsonl line 2: field "answer" must be a non-empty string');
    expect([e.file, e.line, e.field]).toEqual(['tasks.jsonl', 2, 'answer']);
  });

  it.each([
    // (a)
    [ours({ prompt: undefined }), 'math', 'field "prompt" must be a non-empty string'],
    [ours({ answer: 7 }), 'document', 'field "answer" must be a non-empty string'],
    [ours({ id: { a: 1 } }), 'math', 'field "id" must be a non-empty string or a number'],
    [ours({ id: '' }), 'math', 'field "id" must be a non-empty string or a number'],
    [oursCode({ entry_point: undefined }), 'code', 'field "entry_point" must be a non-empty string'],
    [oursCode({ entry_point: 'task func' }), 'code', 'field "entry_point" must be a Python identifier'],
    [oursCode({ test: ['x'] }), 'code', 'field "test" must be a non-empty string'],
    [
      oursCode({ test: 'import unittest\nclass Tests(unittest.TestCase): pass\n' }),
      'code',
      'field "test" must define class TestCases (a unittest.TestCase)',
    ],
    // (b)
    [single({ single_turn_prompt: 3 }), 'math', 'field "single_turn_prompt" must be a non-empty string'],
    [single({ single_turn_completion: undefined }), 'document', 'field "single_turn_completion" must be a non-empty string'],
    [single({ single_turn_metadata: ['level'] }), 'math', 'field "single_turn_metadata" must be an object'],
    [
      singleCode({ single_turn_completion: 'def task_func(): pass' }),
      'code',
      'field "single_turn_completion" must be a JSON object string {dataset, task_id, test, entry_point, answer}',
    ],
    [
      singleCode({ single_turn_completion: '[1]' }),
      'code',
      'field "single_turn_completion" must be a JSON object string {dataset, task_id, test, entry_point, answer}',
    ],
    [
      singleCode({ single_turn_completion: JSON.stringify({ ...PKG, test: undefined }) }),
      'code',
      'field "single_turn_completion.test" must be a non-empty string',
    ],
    [
      singleCode({ single_turn_completion: JSON.stringify({ ...PKG, answer: '' }) }),
      'code',
      'field "single_turn_completion.answer" must be a non-empty string',
    ],
    [
      singleCode({ single_turn_completion: JSON.stringify({ ...PKG, entry_point: 5 }) }),
      'code',
      'field "single_turn_completion.entry_point" must be a non-empty string',
    ],
    // (c)
    [multi(1.5), 'math', 'field "conv_id" must be an integer or a non-empty string'],
    [multi(null), 'math', 'field "conv_id" must be an integer or a non-empty string'],
    [multi(1, { single_turn_prompt: undefined }), 'math', 'field "single_turn_prompt" must be a non-empty string'],
    [multi(1, { single_turn_metadata: 'meta' }), 'document', 'field "single_turn_metadata" must be an object'],
    [multi(1), 'code', 'field "single_turn_completion" must be a JSON object string {dataset, task_id, test, entry_point, answer}'],
    // rows
    ['{"prompt": ', 'math', 'the row is not valid JSON'],
    ['["P", "A"]', 'math', 'the row must be a JSON object'],
  ] as const)('%s as %s → %s', (line, kind, message) => {
    const e = errorOf(line, kind);
    if (message.startsWith('the row is not valid JSON')) expect(e.message).toMatch(/^tasks\.jsonl line 1: the row is not valid JSON \(/);
    else expect(e.message).toBe(`tasks.jsonl line 1: ${message}`);
  });

  it('a conversation whose rows disagree on its goal', () => {
    expect(errorOf([multi(3), multi(4), multi(3, { single_turn_prompt: 'other' })].join('\n'), 'document').message).toBe(
      'tasks.jsonl line 3: field "single_turn_prompt" differs from line 1, which has the same conv_id',
    );
  });

  it('duplicate ids, empty files, unknown kinds and unreadable files', () => {
    expect(errorOf([ours(), ours()].join('\n'), 'math').message).toBe('tasks.jsonl line 2: field "id" "t1" is used by an earlier row');
    expect(errorOf('\n  \n', 'code').message).toBe('tasks.jsonl: contains no tasks');
    expect(errorOf(ours(), 'chess' as CollabTaskKind).message).toBe(
      'tasks.jsonl: kind "chess" is not one of math, document, code, abg-coqa',
    );
    expect(() => loadCollabTasks('/nonexistent/math.jsonl', 'math')).toThrow('/nonexistent/math.jsonl: cannot be read (ENOENT)');
  });
});
