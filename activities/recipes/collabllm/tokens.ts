// How many cl100k_base tokens a text is: the unit of the seed's token_amount (CollabLLM examples/metrics/efficiency.py
// encodes with tiktoken's cl100k_base, disallowed_special=(), so special-token text counts as ordinary text).
// js-tiktoken is tiktoken's own JavaScript port with the ranks bundled (offline); `lite` plus one rank file loads
// cl100k only, not every encoding.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100kBase from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | undefined;

/** cl100k_base tokens of `text`, special-token text included as plain text (allowed: none, disallowed: none). */
export function cl100kTokens(text: string): number {
  encoder ??= new Tiktoken(cl100kBase);
  return encoder.encode(text, [], []).length;
}
