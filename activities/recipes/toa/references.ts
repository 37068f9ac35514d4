// The reference outputs an evaluation judges against (the baseline model's answers), one per evaluation prompt.
// A file is a JSON array (AlpacaEval's reference outputs, e.g. alpaca_eval_gpt4_baseline.json) or JSONL; each row is
//   AlpacaEval:        {"instruction", "output", "generator"?}            — matched to a task by its instruction text
//   ours:              {"id", "output", "instruction_difficulty"?}         — matched by id
//   Arena-Hard answer: {"question_id", "choices": [{"turns": [{"content"}]}]} (arena-hard-auto model_answer/*.jsonl)
//                                                                         — matched by id
// Any row may carry "instruction_difficulty" (a number: alpaca_eval's per-instruction γ_x, its
// instruction_difficulty.csv), which the length-controlled GLM then uses (win-rates.ts). An id match wins over an
// instruction match. A bad row is one TaskFileError naming file, line (array: item) and field.
import { readTaskFile, type Row, TaskFileError } from '../task-file';
import type { ToaTask } from './tasks';

export interface Reference {
  output: string;
  difficulty?: number;
}

export interface ReferenceOutputs {
  byId: Map<string, Reference>;
  byInstruction: Map<string, Reference>;
  file: string;
}

function difficultyOf(row: Row, file: string, line: number): number | undefined {
  const d = row.instruction_difficulty;
  if (d === undefined) return undefined;
  if (typeof d !== 'number' || !Number.isFinite(d)) throw new TaskFileError(file, line, 'instruction_difficulty', 'must be a number');
  return d;
}

function outputOf(row: Row, file: string, line: number): string {
  if (row.output !== undefined) {
    if (typeof row.output !== 'string' || !row.output.trim()) throw new TaskFileError(file, line, 'output', 'must be a non-empty string');
    return row.output;
  }
  const content = (row.choices as Array<{ turns?: Array<{ content?: unknown }> }> | undefined)?.[0]?.turns?.[0]?.content;
  if (typeof content !== 'string' || !content.trim())
    throw new TaskFileError(file, line, 'output', 'must be a non-empty string (or, in an Arena-Hard answer, choices[0].turns[0].content)');
  return content;
}

function rowsOf(content: string, file: string): Array<{ row: unknown; line: number }> {
  const text = content.replace(/^\uFEFF/, '').trim();
  if (text.startsWith('[')) {
    let items: unknown;
    try {
      items = JSON.parse(text);
    } catch {
      throw new TaskFileError(file, 0, '', 'starts with "[" but is not a valid JSON array');
    }
    return (items as unknown[]).map((row, i) => ({ row, line: i + 1 }));
  }
  return content.split('\n').flatMap((t, i) => {
    if (!t.trim()) return [];
    try {
      return [{ row: JSON.parse(t) as unknown, line: i + 1 }];
    } catch {
      throw new TaskFileError(file, i + 1, '', 'not valid JSON');
    }
  });
}

export function parseReferences(content: string, file: string): ReferenceOutputs {
  const out: ReferenceOutputs = { byId: new Map(), byInstruction: new Map(), file };
  const rows = rowsOf(content, file);
  if (!rows.length) throw new TaskFileError(file, 0, '', 'has no reference outputs');
  for (const { row, line } of rows) {
    if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(file, line, '', 'must be a JSON object');
    const r = row as Row;
    const difficulty = difficultyOf(r, file, line);
    const ref: Reference = { output: outputOf(r, file, line), ...(difficulty === undefined ? {} : { difficulty }) };
    const id = r.id ?? r.question_id;
    if (id !== undefined) {
      if (typeof id !== 'string' && typeof id !== 'number') throw new TaskFileError(file, line, 'id', 'must be a string or a number');
      out.byId.set(String(id), ref);
    } else if (typeof r.instruction === 'string' && r.instruction.trim()) out.byInstruction.set(r.instruction.trim(), ref);
    else throw new TaskFileError(file, line, 'instruction', 'must be a non-empty string (or give the row an "id")');
  }
  return out;
}

export const loadReferences = (file: string): ReferenceOutputs => parseReferences(readTaskFile(file), file);

/** The reference for a task, or undefined. */
export const referenceFor = (refs: ReferenceOutputs, task: ToaTask): Reference | undefined =>
  refs.byId.get(task.id) ?? refs.byInstruction.get(task.instruction.trim());

/** The first task without a reference output, named for the config check. */
export function missingReference(refs: ReferenceOutputs, tasks: readonly ToaTask[]): string | undefined {
  const t = tasks.find((x) => referenceFor(refs, x) === undefined);
  return t && `has no reference output for evaluation task "${t.id}" (matched by "id", or by "instruction" text)`;
}
