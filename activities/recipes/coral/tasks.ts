// CoRal task files: JSONL rows in each dataset's own field names (as the seed reads them), normalised to one
// CoralTask shape. A bad row is one TaskFileError naming file, line and field.
import { readFileSync } from 'node:fs';

export const CORAL_DATASETS = ['mmlu_pro', 'gpqa', 'math', 'explore_tom', 'hi_tom'] as const;
export type CoralDataset = (typeof CORAL_DATASETS)[number];

export interface CoralTask {
  id: string;
  dataset: CoralDataset;
  question: string;
  /** Multiple-choice options (MMLU-Pro up to 10, GPQA 4), lettered A, B, ... */
  options?: string[];
  /** Gold answer: a letter (MC), the final answer (MATH) or the expected short answer (ToM). */
  gold: string;
  /** ToM datasets: the story the question is about. */
  story?: string;
}

export class TaskFileError extends Error {
  override name = 'TaskFileError';
  constructor(readonly file: string, readonly line: number, readonly field: string, detail: string) {
    super(`${file} line ${line}: field "${field}" ${detail}`);
  }
}

export const isMultipleChoice = (d: CoralDataset) => d === 'mmlu_pro' || d === 'gpqa';
export const isTheoryOfMind = (d: CoralDataset) => d === 'explore_tom' || d === 'hi_tom';
export const letter = (i: number) => String.fromCharCode(65 + i);

type Row = Record<string, unknown>;

function str(row: Row, field: string, at: [string, number]): string {
  const v = row[field];
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string' || v.trim() === '') throw new TaskFileError(at[0], at[1], field, 'must be a non-empty string');
  return v;
}

function options(row: Row, field: string, at: [string, number], exactly?: number): string[] {
  const v = row[field];
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' || typeof x === 'number'))
    throw new TaskFileError(at[0], at[1], field, 'must be a non-empty list of strings');
  if (v.length > 26) throw new TaskFileError(at[0], at[1], field, `has ${v.length} options; at most 26 can be lettered`);
  if (exactly && v.length !== exactly) throw new TaskFileError(at[0], at[1], field, `must have exactly ${exactly} options, has ${v.length}`);
  return v.map(String);
}

export function parseCoralRow(row: Row, dataset: CoralDataset, file: string, lineNo: number): CoralTask {
  const at: [string, number] = [file, lineNo];
  const id = row.id !== undefined ? String(row.id) : `${dataset}-${lineNo}`;
  switch (dataset) {
    case 'mmlu_pro': {
      const opts = options(row, 'options', at);
      const answer = str(row, 'answer', at).trim().toUpperCase();
      if (!/^[A-Z]$/.test(answer) || answer.charCodeAt(0) - 65 >= opts.length)
        throw new TaskFileError(file, lineNo, 'answer', `must be a letter among the ${opts.length} options, got "${answer}"`);
      return { id, dataset, question: str(row, 'question', at), options: opts, gold: answer };
    }
    case 'gpqa': {
      const opts = options(row, 'choices', at, 4);
      const label = row.label;
      if (typeof label !== 'number' || !Number.isInteger(label) || label < 0 || label >= opts.length)
        throw new TaskFileError(file, lineNo, 'label', `must be the index (0-${opts.length - 1}) of the correct choice`);
      return { id, dataset, question: str(row, 'Question', at), options: opts, gold: letter(label) };
    }
    case 'math':
      return { id, dataset, question: str(row, 'problem', at), gold: str(row, 'answer', at) };
    case 'explore_tom':
    case 'hi_tom':
      return { id, dataset, story: str(row, 'story_structure', at), question: str(row, 'question', at), gold: str(row, 'expected_answer', at) };
  }
}

export function parseCoralTasks(text: string, file: string, dataset: CoralDataset): CoralTask[] {
  if (!(CORAL_DATASETS as readonly string[]).includes(dataset))
    throw new TaskFileError(file, 0, 'dataset', `"${dataset}" is not one of ${CORAL_DATASETS.join(', ')}`);
  const tasks: CoralTask[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new TaskFileError(file, i + 1, '(row)', 'is not valid JSON');
    }
    if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(file, i + 1, '(row)', 'must be a JSON object');
    const task = parseCoralRow(row as Row, dataset, file, i + 1);
    if (ids.has(task.id)) throw new TaskFileError(file, i + 1, 'id', `"${task.id}" appears twice`);
    ids.add(task.id);
    tasks.push(task);
  });
  return tasks;
}

export function loadCoralTasks(file: string, dataset: CoralDataset): CoralTask[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new TaskFileError(file, 0, '(file)', `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parseCoralTasks(text, file, dataset);
}
