// Task files of every recipe: JSONL, one object per line. The line loop, the one-error-naming-file-line-field
// contract and the duplicate-id check are the same for all; each recipe only parses its own row shape.
import { readFileSync } from 'node:fs';

/** A bad task (or records) file: names the file, the 1-based line and the field, never a stack trace. */
export class TaskFileError extends Error {
  override name = 'TaskFileError';
  constructor(
    readonly file: string,
    /** 1-based line; 0 when the problem is the whole file. */
    readonly line: number,
    /** The offending field ('' when the row itself is the problem). */
    readonly field: string,
    detail: string,
  ) {
    super(`${file}${line ? ` line ${line}` : ''}: ${field ? `field "${field}" ` : ''}${detail}`);
  }
}

export type Row = Record<string, unknown>;

/**
 * A row's own id as written — a string or a number (the seeds' files use both) — or undefined when absent or empty;
 * anything else is a TaskFileError naming `field`.
 */
export function rowId(row: Row, file: string, line: number, field = 'id'): string | number | undefined {
  const v = row.id;
  if (v !== undefined && typeof v !== 'string' && !(typeof v === 'number' && Number.isFinite(v)))
    throw new TaskFileError(file, line, field, 'must be a string or a number');
  return v === '' ? undefined : v;
}

/** A task or records file's text; an unreadable file is one TaskFileError naming it. */
export function readTaskFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new TaskFileError(file, 0, '', `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** Every non-blank line of a records file as parsed JSON, with its 1-based line; bad JSON is one TaskFileError. */
export function jsonlRows(file: string): Array<{ row: unknown; line: number }> {
  const out: Array<{ row: unknown; line: number }> = [];
  readTaskFile(file)
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      try {
        out.push({ row: JSON.parse(text), line: i + 1 });
      } catch {
        throw new TaskFileError(file, i + 1, '', 'not valid JSON');
      }
    });
  return out;
}

/** Parses every non-blank line as a JSON object row with `parseRow`; ids must be unique; an empty file is an error. */
export function parseTaskRows<T extends { id: string }>(content: string, file: string, parseRow: (row: Row, line: number) => T): T[] {
  const tasks: T[] = [];
  const ids = new Set<string>();
  content
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((lineText, i) => {
      const line = i + 1;
      if (!lineText.trim()) return;
      let row: unknown;
      try {
        row = JSON.parse(lineText);
      } catch (err) {
        throw new TaskFileError(file, line, '', `the row is not valid JSON (${(err as Error).message})`);
      }
      if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(file, line, '', 'the row must be a JSON object');
      const task = parseRow(row as Row, line);
      if (ids.has(task.id)) throw new TaskFileError(file, line, 'id', `"${task.id}" is used by an earlier row`);
      ids.add(task.id);
      tasks.push(task);
    });
  if (tasks.length === 0) throw new TaskFileError(file, 0, '', 'contains no tasks');
  return tasks;
}

/** The task files a recipe section names, and how many of their tasks it uses. */
export interface SplitFiles {
  evalTasks: string;
  trainTasks?: string;
  limit?: number;
}

/**
 * A recipe's tasks per split: each file is read once per process and way of reading it (`kind`: a dataset, a
 * ColBench kind), then cut to the section's `limit`. A split without a file has no tasks.
 */
export function splitTaskReader<T, K extends string>(
  load: (file: string, kind: K) => T[],
): (cfg: SplitFiles, split: 'eval' | 'train', kind: K) => T[] {
  const loaded = new Map<string, T[]>();
  const limited = new Map<string, T[]>();
  return (cfg, split, kind) => {
    const file = split === 'eval' ? cfg.evalTasks : cfg.trainTasks;
    if (!file) return [];
    // The cut list is kept too: recipes ask for it once per conversation, and a fresh copy each time made every
    // conversation cost time in the number of tasks (an iteration of 250,000 tasks × 4 samples).
    const key = `${file}#${kind}`;
    let tasks = limited.get(`${key}#${cfg.limit ?? ''}`);
    if (!tasks) {
      let all = loaded.get(key);
      if (!all) loaded.set(key, (all = load(file, kind)));
      limited.set(`${key}#${cfg.limit ?? ''}`, (tasks = cfg.limit ? all.slice(0, cfg.limit) : all));
    }
    return tasks;
  };
}
