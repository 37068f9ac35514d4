// `collab-loop score`: runs a recipe's evaluator over a records file, one JSON line out per record in — so an
// evaluator can be checked on its own, without a model or a server.
import { readFileSync } from 'node:fs';
import { scoreCoralRecord, type CoralDataset } from '../activities/recipes/coral';
import { UserError } from './user-error';

const CORAL_DATASETS = ['mmlu_pro', 'gpqa', 'math', 'explore_tom', 'hi_tom'];

export interface ScoreOptions { recipe: string; dataset?: string; input: string; tasks?: string; compat: 'fixed' | 'seed' }

export async function scoreFile(o: ScoreOptions): Promise<string[]> {
  if (o.recipe === 'colbench-code') return scoreColbenchCode(o);
  if (o.recipe !== 'coral') throw new UserError(`--recipe: unknown recipe "${o.recipe}" (known: coral, colbench-code)`);
  if (!o.dataset || !CORAL_DATASETS.includes(o.dataset))
    throw new UserError(`--dataset: must be one of ${CORAL_DATASETS.join(', ')} for --recipe coral`);
  let text: string;
  try {
    text = readFileSync(o.input, 'utf8');
  } catch (err) {
    throw new UserError(`--input: cannot read ${o.input} (${(err as NodeJS.ErrnoException).code})`);
  }
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw new UserError(`${o.input} line ${i + 1}: not valid JSON`);
    }
    out.push(JSON.stringify(scoreCoralRecord(o.dataset as CoralDataset, row, { file: o.input, line: i + 1, compat: o.compat })));
  });
  return out;
}

/** Each record's answer runs against its task's hidden tests in the Python sandbox. */
async function scoreColbenchCode(o: ScoreOptions): Promise<string[]> {
  const { loadColbenchTasks, scoreColbenchCodeFile } = await import('../activities/recipes/colbench');
  const { runCodeTests } = await import('../activities/sandbox/code-tests');
  const tasks = o.tasks ? loadColbenchTasks(o.tasks, 'code') : undefined;
  const results = await scoreColbenchCodeFile(o.input, runCodeTests, { tasks, compat: o.compat });
  return results.map((r) => JSON.stringify(r));
}
