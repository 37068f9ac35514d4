import { describe, expect, it } from 'vitest';
import { loadColbenchTasks, parseColbenchTasks, TaskFileError, type ColbenchKind } from '../../../../../activities/recipes/colbench';
import { TaskFileError as CoralTaskFileError } from '../../../../../activities/recipes/coral/tasks';
import { backendTasks, htmlTasks } from '../../../../helpers/colbench';

function errorOf(text: string, kind: ColbenchKind, file = 'tasks.jsonl'): TaskFileError {
  try {
    parseColbenchTasks(text, file, kind);
  } catch (err) {
    expect(err).toBeInstanceOf(TaskFileError);
    return err as TaskFileError;
  }
  throw new Error('expected a TaskFileError');
}

const code = (o: Record<string, unknown> = {}) =>
  JSON.stringify({
    problem_description: 'I need a fee function.',
    ground_truth: 'def f(x):\n    return x + 1\n',
    test_cases: { t1: 'f(1)', t2: 'f(2)' },
    ...o,
  });
const html = (o: Record<string, unknown> = {}) =>
  JSON.stringify({ problem_description: 'A page.', ground_truth: '<html><body><h1>Hi</h1></body></html>', ...o });

describe('ColBench task files', () => {
  it('normalise backend and frontend rows, keeping extra fields out and deriving ids', () => {
    const [c] = parseColbenchTasks(`\n${code({ source: 'web', extra: [1] })}`, 'f', 'code');
    expect(c).toEqual({
      id: 'code-2',
      kind: 'code',
      problem: 'I need a fee function.',
      reference: 'def f(x):\n    return x + 1\n',
      testCases: { t1: 'f(1)', t2: 'f(2)' },
    });
    const [h] = parseColbenchTasks(html({ id: 7 }), 'f', 'html');
    expect(h).toEqual({ id: '7', kind: 'html', problem: 'A page.', reference: '<html><body><h1>Hi</h1></body></html>' });
  });

  it('reuse the CoRal TaskFileError class', () => {
    expect(TaskFileError).toBe(CoralTaskFileError);
  });

  it('name file, line and field of a bad row in one message', () => {
    const e = errorOf([code(), code({ id: 'b' }), code({ test_cases: ['f(1)'] })].join('\n'), 'code');
    expect(e.message).toBe('tasks.jsonl line 3: field "test_cases" must be an object mapping test names to Python call expressions');
    expect([e.file, e.line, e.field]).toEqual(['tasks.jsonl', 3, 'test_cases']);
  });

  it.each([
    [code({ problem_description: '' }), 'code', 'field "problem_description" must be a non-empty string'],
    [code({ ground_truth: 3 }), 'code', 'field "ground_truth" must be a non-empty string'],
    [code({ test_cases: {} }), 'code', 'field "test_cases" must hold at least one test'],
    [code({ test_cases: { t1: 'f(1)', t2: 5 } }), 'code', 'field "test_cases.t2" must be a non-empty string (a Python call expression)'],
    [code({ id: { a: 1 } }), 'code', 'field "id" must be a string or a number'],
    [html({ ground_truth: 'just text' }), 'html', 'field "ground_truth" must be an HTML page (with <html> or <body>)'],
    [JSON.stringify({ ground_truth: '<html></html>' }), 'html', 'field "problem_description" must be a non-empty string'],
    ['{"problem_description": ', 'code', 'the row is not valid JSON'],
    ['["a"]', 'code', 'the row must be a JSON object'],
  ] as const)('reject %s (%s)', (line, kind, message) => {
    expect(errorOf(line, kind).message).toContain(`tasks.jsonl line 1: ${message}`);
  });

  it('reject duplicate ids, empty files, unknown kinds and unreadable files', () => {
    expect(errorOf([code({ id: 'a' }), code({ id: 'a' })].join('\n'), 'code').message).toBe(
      'tasks.jsonl line 2: field "id" "a" is used by an earlier row',
    );
    expect(errorOf('\n \n', 'html').message).toBe('tasks.jsonl: contains no tasks');
    expect(errorOf(code(), 'sql' as ColbenchKind).message).toBe('tasks.jsonl: kind "sql" is not one of code, html');
    expect(() => loadColbenchTasks('/nonexistent/backend.jsonl', 'code')).toThrow('/nonexistent/backend.jsonl: cannot be read (ENOENT)');
  });

  it('ship at least 24 backend tasks with ≥ 6 tests each, standard-library-only references', () => {
    const tasks = backendTasks();
    expect(tasks.length).toBeGreaterThanOrEqual(24);
    for (const t of tasks) {
      expect(Object.keys(t.testCases).length, t.id).toBeGreaterThanOrEqual(6);
      const fn = /^def (\w+)\(/m.exec(t.reference)?.[1];
      expect(fn, t.id).toBeTruthy();
      // Every test calls the reference function by name.
      for (const expr of Object.values(t.testCases)) expect(expr.startsWith(`${fn}(`), `${t.id}: ${expr}`).toBe(true);
      for (const m of t.reference.matchAll(/^\s*(?:import|from)\s+(\w+)/gm)) expect(['math', 'string'], t.id).toContain(m[1]);
      // Vague on purpose: the request does not give the rules away.
      expect(t.problem.length, t.id).toBeLessThan(400);
    }
  });

  it('ship 5 self-contained frontend tasks (no network URLs)', () => {
    const tasks = htmlTasks();
    expect(tasks).toHaveLength(5);
    for (const t of tasks) {
      expect(t.reference, t.id).toMatch(/^<!DOCTYPE html>\s*<html/i);
      expect(t.reference, t.id).not.toMatch(/https?:|\/\/[a-z]|\bsrc=|url\(|@import|<link\b|<script\b/i);
    }
  });
});
