// `collab-loop score`: runs a recipe's evaluator over a records file, one JSON line out per record in — so an
// evaluator can be checked on its own, without a model or a server.
import { readFileSync } from 'node:fs';
import { scoreCoralRecord, type CoralDataset } from '../activities/recipes/coral';
import { UserError } from './user-error';

const CORAL_DATASETS = ['mmlu_pro', 'gpqa', 'math', 'explore_tom', 'hi_tom'];

export function scoreFile(o: { recipe: string; dataset?: string; input: string; compat: 'fixed' | 'seed' }): string[] {
  if (o.recipe !== 'coral') throw new UserError(`--recipe: unknown recipe "${o.recipe}" (known: coral)`);
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
