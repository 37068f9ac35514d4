// Beliefs: what answer a turn commits to. Two parsers: the extractor LLM's reply (what CoRal uses during a
// conversation), and a local parser of a full response (for the simulator and `collab-loop score`).
import type { Compat } from './compat';
import { firstBoxed, lastBoxed } from './math-equivalence';
import { isMultipleChoice, type CoralDataset } from './tasks';

export interface Belief {
  /** Normalised answer: an option letter, a boxed expression, or a ToM short answer. */
  answer: string;
  /** A usable answer (not an error and not "not sure yet"). */
  valid: boolean;
  unsure: boolean;
}

export const UNSURE = 'not sure yet';
const unsure = (): Belief => ({ answer: UNSURE, valid: false, unsure: true });
const invalid = (): Belief => ({ answer: '', valid: false, unsure: false });

/** ToM short-answer normalisation (seed brief A.4). */
export function normalizeTomAnswer(raw: string, dataset: CoralDataset, compat: Compat): string {
  let s = raw.trim().replace(/^(short answer:|the final answer is:?)\s*/i, '');
  s = (s.split('\n')[0] ?? '').toLowerCase();
  // SEED-COMPAT: the seed deletes "the" everywhere, even inside words ("other" -> "or", "theater" -> "ater").
  s = compat === 'seed' ? s.replaceAll('the', '') : s.replace(/\bthe\b/g, '');
  s = s.replace(/\s+/g, ' ').trim().replace(/[.\s]+$/, '');
  if (dataset === 'hi_tom') s = s.replace(/ /g, '_');
  return s;
}

export function parseExtractorReply(dataset: CoralDataset, reply: string, compat: Compat): Belief {
  if (reply.toLowerCase().includes(UNSURE)) return unsure();
  if (isMultipleChoice(dataset)) {
    const m = /\(([A-Z])\)/.exec(reply);
    return m ? { answer: m[1], valid: true, unsure: false } : invalid();
  }
  if (dataset === 'math') {
    const b = firstBoxed(reply);
    return b !== undefined && b.trim() !== '' ? { answer: b.trim(), valid: true, unsure: false } : invalid();
  }
  const answer = normalizeTomAnswer(reply, dataset, compat);
  // SEED-COMPAT: the seed treats an empty extraction as a valid answer (and it then matches every gold).
  if (!answer && compat !== 'seed') return invalid();
  return { answer, valid: true, unsure: false };
}

/**
 * The extractor-style reply a perfect extractor would give for a full response: "(X)", "$\boxed{..}$", a short
 * answer, or "not sure yet". Used by the simulated policy and by `collab-loop score`.
 */
export function extractLocally(dataset: CoralDataset, response: string): string {
  if (isMultipleChoice(dataset)) {
    const stated = [...response.matchAll(/answer is:?\s*\(?([A-Z])\)/gi)].pop();
    if (stated) return `(${stated[1].toUpperCase()})`;
    const any = [...response.matchAll(/\(([A-Z])\)/g)].pop();
    return any ? `(${any[1]})` : UNSURE;
  }
  if (dataset === 'math') {
    const b = lastBoxed(response);
    return b !== undefined ? `$\\boxed{${b}}$` : UNSURE;
  }
  const m = [...response.matchAll(/short answer:\s*(.+)/gi)].pop();
  return m ? m[1].trim() : UNSURE;
}
