// ColBench task files (sweet_rl README, data formats): JSONL rows in the seed's own field names, normalised to one ColbenchTask.
// Backend rows: `problem_description` (the vague request), `ground_truth` (Python source of the hidden reference
// function), `test_cases` (test name → Python call expression). Frontend rows: `problem_description` (a design
// brief), `ground_truth` (the reference HTML). Extra fields are allowed (the seed's files carry more); an `id` is
// derived from the line when absent. A bad row is one TaskFileError naming file, line and field.
import { parseTaskRows, TaskFileError, type Row, readTaskFile, rowId } from '../task-file';

export { TaskFileError };

export type ColbenchKind = 'code' | 'html';

export interface ColbenchCodeTask {
  id: string;
  kind: 'code';
  /** What the agent is told: deliberately vague. */
  problem: string;
  /** Hidden: the reference Python function. Only the human simulator, the critic and the scorer see it. */
  reference: string;
  /** Hidden unit tests: name → call expression. */
  testCases: Record<string, string>;
}

export interface ColbenchHtmlTask {
  id: string;
  kind: 'html';
  problem: string;
  /** Hidden: the reference page. The human simulator sees only its screenshot. */
  reference: string;
}

export type ColbenchTask = ColbenchCodeTask | ColbenchHtmlTask;

interface At {
  file: string;
  line: number;
  /** Prefix of field names in messages, e.g. "task." for a task nested in a trajectory record. */
  prefix?: string;
}

const fail = (at: At, field: string, detail: string): never => {
  throw new TaskFileError(at.file, at.line, `${at.prefix ?? ''}${field}`, detail);
};

function text(row: Row, field: string, at: At): string {
  const v = row[field];
  if (typeof v !== 'string' || v.trim() === '') fail(at, field, 'must be a non-empty string');
  return v as string;
}

function testCases(row: Row, at: At): Record<string, string> {
  const v = row.test_cases;
  if (!v || typeof v !== 'object' || Array.isArray(v))
    return fail(at, 'test_cases', 'must be an object mapping test names to Python call expressions');
  const entries = Object.entries(v as Row);
  if (entries.length === 0) fail(at, 'test_cases', 'must hold at least one test');
  for (const [name, expr] of entries)
    if (typeof expr !== 'string' || expr.trim() === '')
      fail(at, `test_cases.${name}`, 'must be a non-empty string (a Python call expression)');
  return Object.fromEntries(entries) as Record<string, string>;
}

/** One task row (also used by `collab-loop score`, whose records carry the task under `task`). */
export function parseColbenchRow(row: Row, kind: ColbenchKind, file: string, line: number, prefix = ''): ColbenchTask {
  const at: At = { file, line, prefix };
  const id = String(rowId(row, file, line, `${prefix}id`) ?? `${kind}-${line}`);
  const problem = text(row, 'problem_description', at);
  const reference = text(row, 'ground_truth', at);
  if (kind === 'code') return { id, kind, problem, reference, testCases: testCases(row, at) };
  if (!/<html[\s>]|<body[\s>]/i.test(reference)) fail(at, 'ground_truth', 'must be an HTML page (with <html> or <body>)');
  return { id, kind, problem, reference };
}

export function parseColbenchTasks(content: string, file: string, kind: ColbenchKind): ColbenchTask[] {
  if (kind !== 'code' && kind !== 'html') throw new TaskFileError(file, 0, '', `kind "${kind as string}" is not one of code, html`);
  return parseTaskRows(content, file, (row, line) => parseColbenchRow(row, kind, file, line));
}

export function loadColbenchTasks(file: string, kind: 'code'): ColbenchCodeTask[];
export function loadColbenchTasks(file: string, kind: 'html'): ColbenchHtmlTask[];
export function loadColbenchTasks(file: string, kind: ColbenchKind): ColbenchTask[];
export function loadColbenchTasks(file: string, kind: ColbenchKind): ColbenchTask[] {
  const content = readTaskFile(file);
  return parseColbenchTasks(content, file, kind);
}

/** Tasks by id, for records that carry only `taskId`. */
export function taskIndex<T extends ColbenchTask>(tasks: readonly T[]): Map<string, T> {
  return new Map(tasks.map((t) => [t.id, t]));
}
