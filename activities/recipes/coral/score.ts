// `collab-loop score --recipe coral`: scores records on their own (no model, no server), so an evaluator can be
// checked against known answers. A row carries the task fields (the dataset's own names) plus either `response`
// (a model response, parsed locally) or `extracted` (an extractor reply).
import { parseExtractorReply, extractLocally } from './beliefs';
import type { Compat } from './compat';
import { matchesGold } from './match';
import { parseCoralRow, TaskFileError, type CoralDataset } from './tasks';

export interface ScoredRecord { id: string; extracted: string; valid: boolean; correct: boolean }

export function scoreCoralRecord(dataset: CoralDataset, row: unknown, at: { file: string; line: number; compat: Compat }): ScoredRecord {
  if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(at.file, at.line, '(row)', 'must be a JSON object');
  const r = row as Record<string, unknown>;
  const task = parseCoralRow(r, dataset, at.file, at.line);
  let reply: string;
  if (typeof r.extracted === 'string') reply = r.extracted;
  else if (typeof r.response === 'string') reply = extractLocally(dataset, r.response);
  else throw new TaskFileError(at.file, at.line, 'response', 'must be a string (or give "extracted")');
  const belief = parseExtractorReply(dataset, reply, at.compat);
  return { id: task.id, extracted: belief.answer, valid: belief.valid, correct: matchesGold(task, belief, at.compat) };
}
