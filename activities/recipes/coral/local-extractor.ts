// A local, rule-based stand-in for the extractor LLM: reads a full response and replies the way a perfect
// extractor would ("(X)", "$\boxed{...}$", a short answer, or "not sure yet"). Used by the simulated policy and by
// `collab-loop score` on model responses — never during a real conversation, where the extractor is an LLM.
import { lastBoxed } from '../shared/boxed';
import { UNSURE_PHRASE } from './extract';
import { isMultipleChoice, type CoralDataset } from './tasks';

const lastMatch = (s: string, re: RegExp) => [...s.matchAll(re)].pop();

export function localExtractorReply(dataset: CoralDataset, response: string): string {
  if (isMultipleChoice(dataset)) {
    // An explicit statement wins ("Final answer: (C)", "the answer is (C)"); otherwise a single letter mentioned
    // in parentheses is taken as the answer; several different ones are not a commitment.
    const stated = lastMatch(response, /(?:final answer|answer is)\s*:?\s*\(([A-Z])\)/gi);
    if (stated) return `(${stated[1].toUpperCase()})`;
    const letters = new Set([...response.matchAll(/\(([A-Z])\)/g)].map((m) => m[1]));
    return letters.size === 1 ? `(${[...letters][0]})` : UNSURE_PHRASE;
  }
  if (dataset === 'math') {
    const boxed = lastBoxed(response);
    return boxed !== undefined ? `$\\boxed{${boxed}}$` : UNSURE_PHRASE;
  }
  const stated = lastMatch(response, /short answer:[ \t]*(.*)/gi) ?? lastMatch(response, /final answer(?: is)?:?[ \t]*(.*)/gi);
  return stated?.[1].trim() ? stated[1].trim() : UNSURE_PHRASE;
}
