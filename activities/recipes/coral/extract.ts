// Beliefs: which answer a turn commits to, parsed from the extractor LLM's reply (collaborative-reasoner evaluators/ and utils/).
//   MMLU-Pro / GPQA: the first "(X)"; MATH: the last \boxed{} (the seed's parse_answer, multiagent-ft eval_math.py); ExploreToM / Hi-ToM: a normalised short answer.
//   A reply containing "not sure yet" is unsure; anything else unusable is invalid. Neither can agree or be correct.
import { lastBoxed } from '../shared/boxed';
import type { Compat } from './compat';
import { isMultipleChoice, type CoralDataset } from './tasks';

export interface Belief {
  /** Normalised answer: an option letter, the boxed expression, or a ToM short answer. '' when none. */
  answer: string;
  /** Usable for agreement and matching (not unsure, not an extraction failure). */
  valid: boolean;
  /** The extractor said "not sure yet". */
  unsure: boolean;
}

export const UNSURE_PHRASE = 'not sure yet';
const unsure: Belief = { answer: '', valid: false, unsure: true };
const invalid: Belief = { answer: '', valid: false, unsure: false };
const valid = (answer: string): Belief => ({ answer, valid: true, unsure: false });

/** The ToM short-answer normaliser, applied to extractor replies (and, in fixed mode, to gold answers). */
export function normalizeTomAnswer(raw: string, dataset: CoralDataset, compat: Compat): string {
  let s: string;
  if (compat === 'seed') {
    // SEED-COMPAT: the first line, every "the" substring deleted ("other" → "or", "theater" → "ater"), and
    // `rstrip('.')` before `strip()`, so "basket. " keeps its dot.
    const first = stripAnswerPrefix(raw.split('\n')[0] ?? '');
    s = first.toLowerCase().replaceAll('the', '').replace(/\.+$/, '').trim();
  } else {
    const first = raw.split('\n').find((l) => l.trim() !== '') ?? '';
    s = stripAnswerPrefix(first.trim())
      .toLowerCase()
      .replace(/\bthe\b/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.\s]+$/, '');
  }
  // Hi-ToM answers are container names such as "green_bucket".
  return dataset === 'hi_tom' ? s.replace(/ /g, '_') : s;
}

function stripAnswerPrefix(line: string): string {
  return line.replace(/^(?:short answer:\s*(?:the final answer is\s*)?|the final answer is\s*)/i, '');
}

export function parseExtractorReply(dataset: CoralDataset, reply: string, compat: Compat): Belief {
  if (reply.toLowerCase().includes(UNSURE_PHRASE)) return unsure;
  if (isMultipleChoice(dataset)) {
    const letter = /\(([A-Z])\)/.exec(reply)?.[1];
    return letter ? valid(letter) : invalid;
  }
  const answer = dataset === 'math' ? lastBoxed(reply)?.trim() : normalizeTomAnswer(reply, dataset, compat);
  if (answer === undefined) return invalid;
  if (answer === '') {
    // SEED-COMPAT: the seed has no "empty" check — an empty ToM answer is valid and, being a substring of every
    // gold answer, counts as correct; two empty MATH boxes agree.
    return compat === 'seed' ? valid('') : invalid;
  }
  return valid(answer);
}
