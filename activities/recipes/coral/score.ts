// `collab-loop score --recipe coral --dataset <d> --input records.jsonl`: scores saved answers on their own (no
// model, no server), so an evaluator can be checked against known results. Each row carries the task fields under
// the dataset file's own names plus either `extracted` (an extractor's reply, parsed as during a conversation) or
// `response` (a full model response, read by the local parser the simulator uses — not an LLM). With both,
// `extracted` wins: it is what the conversation would have used.
// Under `compat: seed` a multiple-choice `response` is graded as the seed grades a turn no extractor has read:
// collaborative-reasoner evaluators/match_evaluators.py MatchEvaluator._eval passes the turn's whole content to
// extract_letter_answer, whose capitals must be the gold letter alone.
import type { Compat } from './compat';
import { parseExtractorReply } from './extract';
import { localExtractorReply } from './local-extractor';
import { matchesGold, seedLetters } from './match';
import { isMultipleChoice, parseCoralRow, TaskFileError, type CoralDataset } from './tasks';
import { rowId } from '../task-file';

export interface ScoredRecord {
  id: string | number;
  /** The normalised answer ('' when none). */
  extracted: string;
  valid: boolean;
  correct: boolean;
}

export interface RowLocation {
  file: string;
  line: number;
}

export function scoreRecord(
  dataset: CoralDataset,
  row: unknown,
  compat: Compat,
  at: RowLocation = { file: '(input)', line: 0 },
): ScoredRecord {
  if (!row || typeof row !== 'object' || Array.isArray(row)) throw new TaskFileError(at.file, at.line, '', 'the row must be a JSON object');
  const r = row as Record<string, unknown>;
  const task = parseCoralRow(r, dataset, at.file, at.line);
  // The row's own id as written (a number stays a number), else the one the task got from its line.
  const id = rowId(r, at.file, at.line) ?? task.id;
  if (r.extracted === undefined && typeof r.response === 'string' && compat === 'seed' && isMultipleChoice(dataset)) {
    // SEED-COMPAT: every capital letter of the response (after the seed's lstrip of the characters of "The answer
    // is "), so a lowercase "(c)", several letters or a hedge ("Probably (C)" reads "PC") are not the gold; fixed
    // reads the response as a perfect extractor would (local-extractor.ts). `valid`: one letter was read.
    const letters = seedLetters(r.response);
    return { id, extracted: letters, valid: letters.length === 1, correct: letters === task.gold };
  }
  let reply: string;
  if (r.extracted !== undefined) {
    if (typeof r.extracted !== 'string') throw new TaskFileError(at.file, at.line, 'extracted', 'must be a string (an extractor reply)');
    reply = r.extracted;
  } else if (typeof r.response === 'string') {
    reply = localExtractorReply(dataset, r.response);
  } else {
    throw new TaskFileError(at.file, at.line, 'response', 'must be a string (a model response), or give "extracted" instead');
  }
  const belief = parseExtractorReply(dataset, reply, compat);
  return { id, extracted: belief.answer, valid: belief.valid, correct: matchesGold(task, belief, compat) };
}

/** The options-object form the CLI calls. */
export function scoreCoralRecord(dataset: CoralDataset, row: unknown, o: RowLocation & { compat: Compat }): ScoredRecord {
  return scoreRecord(dataset, row, o.compat, { file: o.file, line: o.line });
}
