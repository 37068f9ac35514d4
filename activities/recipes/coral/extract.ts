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
  /** compat seed, multiple choice and MATH: the reply of an extraction that failed, which the seed still grades
   *  (match.ts). */
  failedReply?: string;
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
    const first = stripAnswerPrefix(raw.split('\n')[0] ?? '', compat);
    s = first.toLowerCase().replaceAll('the', '').replace(/\.+$/, '').trim();
  } else {
    const first = raw.split('\n').find((l) => l.trim() !== '') ?? '';
    s = stripAnswerPrefix(first.trim(), compat)
      .toLowerCase()
      .replace(/\bthe\b/g, '')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/[.\s]+$/, '');
  }
  // Hi-ToM answers are container names such as "green_bucket".
  return dataset === 'hi_tom' ? s.replace(/ /g, '_') : s;
}

function stripAnswerPrefix(line: string, compat: Compat): string {
  // SEED-COMPAT: the seed's prefix pattern is case-sensitive with single spaces ("Short Answer: ", "The final answer
  // is "), so "short answer: basket" keeps its prefix; fixed mode accepts any case and spacing.
  if (compat === 'seed') return line.replace(/^(?:Short Answer: (?:The final answer is )?|The final answer is )/, '');
  return line.replace(/^(?:short answer:\s*(?:the final answer is\s*)?|the final answer is\s*)/i, '');
}

/** compat seed, MATH: the seed's extractor accepts only `$\boxed{…}$` (with the dollars; from the first "$\boxed{" to
 *  the last "}$" of that line) and grades the last \boxed{} inside it (extraction_evaluators.py, eval_math.py). */
function seedMathAnswer(reply: string): string | undefined {
  const m = /\$\\boxed\{.*\}\$/.exec(reply);
  return m ? lastBoxed(m[0])?.trim() : undefined;
}

export function parseExtractorReply(dataset: CoralDataset, reply: string, compat: Compat): Belief {
  if (reply.toLowerCase().includes(UNSURE_PHRASE)) return unsure;
  if (isMultipleChoice(dataset)) {
    const letter = /\(([A-Z])\)/.exec(reply)?.[1];
    if (letter) return valid(letter);
    // SEED-COMPAT: the seed keeps the unread reply, graded later as "Error: <reply>" (match.ts).
    return compat === 'seed' ? { ...invalid, failedReply: reply } : invalid;
  }
  // SEED-COMPAT: the seed reads only a box written as $\boxed{…}$ (seedMathAnswer).
  const answer =
    dataset === 'math'
      ? compat === 'seed'
        ? seedMathAnswer(reply)
        : lastBoxed(reply)?.trim()
      : normalizeTomAnswer(reply, dataset, compat);
  if (answer === undefined) return compat === 'seed' && dataset === 'math' ? { ...invalid, failedReply: reply } : invalid;
  if (answer === '') {
    // SEED-COMPAT: the seed has no "empty" check — an empty ToM answer is valid and, being a substring of every
    // gold answer, counts as correct; two empty MATH boxes agree.
    return compat === 'seed' ? valid('') : invalid;
  }
  return valid(answer);
}
