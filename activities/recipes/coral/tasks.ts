// CoRal task files: JSONL rows in each dataset's own field names (as the seed reads them, collaborative-reasoner README, datasets), normalised
// to one CoralTask. A bad row is one TaskFileError naming file, line and field — never a stack trace.
import { parseTaskRows, TaskFileError, type Row, readTaskFile, rowId } from '../task-file';

export const CORAL_DATASETS = ['mmlu_pro', 'gpqa', 'math', 'explore_tom', 'hi_tom'] as const;
export type CoralDataset = (typeof CORAL_DATASETS)[number];

export interface CoralTask {
  id: string;
  dataset: CoralDataset;
  question: string;
  /** Multiple-choice options, lettered A, B, ... (MMLU-Pro up to 10, GPQA exactly 4). */
  options?: string[];
  /** An option letter (MC), the final answer (MATH) or the expected short answer (ToM). */
  gold: string;
  /** ToM datasets: the story the question is about. */
  story?: string;
}

export { TaskFileError };

export const isMultipleChoice = (d: CoralDataset) => d === 'mmlu_pro' || d === 'gpqa';
export const isTheoryOfMind = (d: CoralDataset) => d === 'explore_tom' || d === 'hi_tom';
export const optionLetter = (i: number) => String.fromCharCode(65 + i);
export const isCoralDataset = (d: string): d is CoralDataset => (CORAL_DATASETS as readonly string[]).includes(d);

interface At {
  file: string;
  line: number;
}

function text(row: Row, field: string, at: At, numbersAllowed = false): string {
  const v = row[field];
  if (numbersAllowed && typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string' || v.trim() === '') throw new TaskFileError(at.file, at.line, field, 'must be a non-empty string');
  return v;
}

function optionList(row: Row, field: string, at: At): string[] {
  const v = row[field];
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string'))
    throw new TaskFileError(at.file, at.line, field, 'must be a non-empty list of strings');
  if (v.length > 26) throw new TaskFileError(at.file, at.line, field, `has ${v.length} options; at most 26 can be lettered A-Z`);
  return v as string[];
}

/** One row of a task file (also used by `collab-loop score`, whose rows carry the same fields). */
export function parseCoralRow(row: Row, dataset: CoralDataset, file: string, line: number): CoralTask {
  const at = { file, line };
  const id = String(rowId(row, file, line) ?? `${dataset}-${line}`);
  switch (dataset) {
    case 'mmlu_pro': {
      const question = text(row, 'question', at);
      const options = optionList(row, 'options', at);
      const answer = text(row, 'answer', at).trim().toUpperCase();
      if (!/^[A-Z]$/.test(answer) || answer.charCodeAt(0) - 65 >= options.length)
        throw new TaskFileError(
          file,
          line,
          'answer',
          `must be one of the option letters A-${optionLetter(options.length - 1)}, got "${answer}"`,
        );
      return { id, dataset, question, options, gold: answer };
    }
    case 'gpqa': {
      const question = text(row, 'Question', at);
      const options = optionList(row, 'choices', at);
      if (options.length !== 4) throw new TaskFileError(file, line, 'choices', `must have exactly 4 entries, has ${options.length}`);
      const label = row.label;
      if (typeof label !== 'number' || !Number.isInteger(label) || label < 0 || label > 3)
        throw new TaskFileError(file, line, 'label', 'must be the index (0-3) of the correct choice');
      return { id, dataset, question, options, gold: optionLetter(label) };
    }
    case 'math':
      return { id, dataset, question: text(row, 'problem', at), gold: text(row, 'answer', at, true) };
    case 'explore_tom':
    case 'hi_tom':
      return {
        id,
        dataset,
        story: text(row, 'story_structure', at),
        question: text(row, 'question', at),
        gold: text(row, 'expected_answer', at, true),
      };
  }
}

export function parseCoralTasks(content: string, file: string, dataset: CoralDataset): CoralTask[] {
  if (!isCoralDataset(dataset)) throw new TaskFileError(file, 0, '', `dataset "${dataset}" is not one of ${CORAL_DATASETS.join(', ')}`);
  return parseTaskRows(content, file, (row, line) => parseCoralRow(row, dataset, file, line));
}

export function loadCoralTasks(file: string, dataset: CoralDataset): CoralTask[] {
  const content = readTaskFile(file);
  return parseCoralTasks(content, file, dataset);
}
