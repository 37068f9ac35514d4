import { describe, expect, it } from 'vitest';
import { loadCoralTasks, parseCoralTasks, TaskFileError, type CoralDataset } from '../../../../../activities/recipes/coral';
import { fixtureTasks } from '../../../../helpers/coral';

function errorOf(text: string, dataset: CoralDataset, file = 'tasks.jsonl'): TaskFileError {
  try {
    parseCoralTasks(text, file, dataset);
  } catch (err) {
    expect(err).toBeInstanceOf(TaskFileError);
    return err as TaskFileError;
  }
  throw new Error('expected a TaskFileError');
}

const mmlu = (o: Record<string, unknown>) => JSON.stringify({ question: 'Q?', options: ['a', 'b', 'c'], answer: 'B', ...o });

describe('task files', () => {
  it('normalise every dataset from its own field names', () => {
    const [m] = parseCoralTasks(mmlu({ id: 'm1' }), 'f', 'mmlu_pro');
    expect(m).toEqual({ id: 'm1', dataset: 'mmlu_pro', question: 'Q?', options: ['a', 'b', 'c'], gold: 'B' });
    const [g] = parseCoralTasks(JSON.stringify({ Question: 'G?', choices: ['w', 'x', 'y', 'z'], label: 3 }), 'f', 'gpqa');
    expect(g).toMatchObject({ id: 'gpqa-1', question: 'G?', options: ['w', 'x', 'y', 'z'], gold: 'D' });
    const [t] = parseCoralTasks(
      `\n${JSON.stringify({ story_structure: 'S.', question: 'Q?', expected_answer: 'yes' })}`,
      'f',
      'explore_tom',
    );
    expect(t).toEqual({ id: 'explore_tom-2', dataset: 'explore_tom', story: 'S.', question: 'Q?', gold: 'yes' });
    const [x] = parseCoralTasks(JSON.stringify({ problem: 'P', answer: 7 }), 'f', 'math');
    expect(x.gold).toBe('7');
  });

  it('load the shipped fixture files with correct gold answers', () => {
    const mmluTasks = fixtureTasks('mmlu_pro');
    expect(mmluTasks).toHaveLength(24);
    expect(mmluTasks.every((t) => t.options!.length >= 4 && t.options!.length <= 10)).toBe(true);
    expect(mmluTasks.find((t) => t.id === 'demo-07')).toMatchObject({ gold: 'J' });
    expect(fixtureTasks('math').find((t) => t.id === 'math-02')?.gold).toBe('2\\sqrt{3}');
    expect(fixtureTasks('gpqa').map((t) => t.gold)).toEqual(['B', 'C', 'C', 'B', 'B', 'C']);
    expect(fixtureTasks('hi_tom')[0]).toMatchObject({ gold: 'green_bucket' });
    expect(fixtureTasks('explore_tom').length).toBeGreaterThanOrEqual(6);
  });

  it('name file, line and field of a bad row in one message', () => {
    const e = errorOf([mmlu({}), mmlu({}), mmlu({ options: 'abc' })].join('\n'), 'mmlu_pro');
    expect(e.message).toBe('tasks.jsonl line 3: field "options" must be a non-empty list of strings');
    expect([e.file, e.line, e.field]).toEqual(['tasks.jsonl', 3, 'options']);
  });

  it.each([
    [mmlu({ options: [] }), 'mmlu_pro', 'field "options" must be a non-empty list of strings'],
    [mmlu({ answer: 'D' }), 'mmlu_pro', 'field "answer" must be one of the option letters A-C, got "D"'],
    [mmlu({ question: '' }), 'mmlu_pro', 'field "question" must be a non-empty string'],
    [JSON.stringify({ Question: 'G?', choices: ['a', 'b', 'c'], label: 0 }), 'gpqa', 'field "choices" must have exactly 4 entries, has 3'],
    [
      JSON.stringify({ Question: 'G?', choices: ['a', 'b', 'c', 'd'], label: '1' }),
      'gpqa',
      'field "label" must be the index (0-3) of the correct choice',
    ],
    [JSON.stringify({ problem: 'P' }), 'math', 'field "answer" must be a non-empty string'],
    [JSON.stringify({ question: 'Q', expected_answer: 'x' }), 'hi_tom', 'field "story_structure" must be a non-empty string'],
    ['{"question": ', 'mmlu_pro', 'the row is not valid JSON'],
    ['[1, 2]', 'mmlu_pro', 'the row must be a JSON object'],
  ] as const)('reject %s (%s)', (line, dataset, message) => {
    expect(errorOf(line, dataset).message).toContain(`tasks.jsonl line 1: ${message}`);
  });

  it('reject duplicate ids, empty files and unknown datasets', () => {
    expect(errorOf([mmlu({ id: 'a' }), mmlu({ id: 'a' })].join('\n'), 'mmlu_pro').message).toBe(
      'tasks.jsonl line 2: field "id" "a" is used by an earlier row',
    );
    expect(errorOf('\n\n', 'math').message).toBe('tasks.jsonl: contains no tasks');
    expect(errorOf(mmlu({}), 'mmlu' as CoralDataset).message).toContain('dataset "mmlu" is not one of');
  });

  it('report an unreadable file as a TaskFileError', () => {
    expect(() => loadCoralTasks('/nonexistent/tasks.jsonl', 'math')).toThrow('/nonexistent/tasks.jsonl: cannot be read (ENOENT)');
  });
});
