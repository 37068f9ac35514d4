// Debate task files: JSONL rows in each dataset's usual field names, normalised to one DebateTask. A bad row is one
// TaskFileError naming file, line and field.
//   math  — Hendrycks MATH: {"problem", "solution"} (gold = the solution's last \boxed{}) or {"problem", "answer"}
//   gsm8k — {"question", "answer"}: the gold is what follows "####" in the answer (or the whole answer)
//   arithmetic — {"question", "answer": number} (arithmetic.ts writes them, as llm_multiagent_debate's gen_math.py)
//   mmlu  — {"question", "options" | "choices": [...], "answer": "C" | 2}
// Without an "id", a row is named after its line.
import { lastBoxed } from '../shared/boxed';
import { parseTaskRows, TaskFileError, type Row, readTaskFile } from '../task-file';

export const DEBATE_DATASETS = ['math', 'gsm8k', 'arithmetic', 'mmlu'] as const;
export type DebateDataset = (typeof DEBATE_DATASETS)[number];
export const isDebateDataset = (d: string): d is DebateDataset => (DEBATE_DATASETS as readonly string[]).includes(d);

export interface DebateTask {
  id: string;
  dataset: DebateDataset;
  /** The question as every agent gets it (multiple choice: with its lettered options). */
  problem: string;
  /** Gold answer: a LaTeX expression (math), a number (gsm8k, arithmetic) or a letter (mmlu). Only metrics read it. */
  gold: string;
}

export const optionLetter = (i: number) => String.fromCharCode(65 + i);

function text(row: Row, field: string, file: string, line: number): string {
  const v = row[field];
  if (typeof v !== 'string' || !v.trim()) throw new TaskFileError(file, line, field, 'must be a non-empty string');
  return v;
}

function parseRow(row: Row, dataset: DebateDataset, file: string, line: number): DebateTask {
  const id = row.id === undefined ? `line-${line}` : String(row.id);
  if (dataset === 'math') {
    const problem = text(row, 'problem', file, line);
    if (row.answer !== undefined) return { id, dataset, problem, gold: text(row, 'answer', file, line) };
    const gold = lastBoxed(text(row, 'solution', file, line));
    if (!gold) throw new TaskFileError(file, line, 'solution', 'has no \\boxed{} answer (or give an "answer" field)');
    return { id, dataset, problem, gold };
  }
  if (dataset === 'gsm8k' || dataset === 'arithmetic') {
    const answer = typeof row.answer === 'number' && Number.isFinite(row.answer) ? String(row.answer) : text(row, 'answer', file, line);
    const gold = (answer.includes('####') ? answer.slice(answer.lastIndexOf('####') + 4) : answer).trim().replace(/,/g, '');
    if (!gold) throw new TaskFileError(file, line, 'answer', 'has nothing after "####"');
    return { id, dataset, problem: text(row, 'question', file, line), gold };
  }
  const field = row.options !== undefined ? 'options' : 'choices';
  const options = row[field];
  if (!Array.isArray(options) || options.length < 2 || options.length > 26 || !options.every((o) => typeof o === 'string'))
    throw new TaskFileError(file, line, field, 'must be a list of 2 to 26 option strings');
  const a = row.answer;
  const index =
    typeof a === 'number' ? a : typeof a === 'string' && /^[A-Za-z]$/.test(a.trim()) ? a.trim().toUpperCase().charCodeAt(0) - 65 : -1;
  if (!Number.isInteger(index) || index < 0 || index >= options.length)
    throw new TaskFileError(file, line, 'answer', `must be an option letter (A–${optionLetter(options.length - 1)}) or a 0-based index`);
  const question = text(row, 'question', file, line);
  const problem = `${question}\n\n${(options as string[]).map((o, i) => `(${optionLetter(i)}) ${o}`).join('\n')}`;
  return { id, dataset, problem, gold: optionLetter(index) };
}

export function parseDebateTasks(content: string, file: string, dataset: DebateDataset): DebateTask[] {
  return parseTaskRows(content, file, (row, line) => parseRow(row, dataset, file, line));
}

export function loadDebateTasks(file: string, dataset: DebateDataset): DebateTask[] {
  const content = readTaskFile(file);
  return parseDebateTasks(content, file, dataset);
}
