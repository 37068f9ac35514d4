// How many cl100k_base tokens a text is: the unit of the seed's token_amount (CollabLLM examples/metrics/efficiency.py
// encodes with tiktoken's cl100k_base, disallowed_special=(), so special-token text counts as ordinary text).
//
// STAND-IN until js-tiktoken (npm, cl100k ranks bundled, offline) is a dependency: this counts cl100k's pre-tokens —
// the pieces tiktoken's split pattern for cl100k_base cuts a text into before BPE merges them. Every pre-token is at
// least one token and common words are exactly one, so this is a lower bound: on this repo's CollabLLM task files it
// is 3–8 % below js-tiktoken 1.0.21's count (whitespace words are 20–60 % below). With js-tiktoken the body becomes
//   getEncoding('cl100k_base').encode(text, [], []).length
// (its encoder made once), and nothing else changes.

/** tiktoken's cl100k_base split pattern (tiktoken_ext/openai_public.py), with JavaScript's unicode flag. */
const CL100K_SPLIT = /'s|'t|'re|'ve|'m|'ll|'d|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+/giu;

/** cl100k_base tokens of `text` (see the stand-in note above). */
export function cl100kTokens(text: string): number {
  return text.match(CL100K_SPLIT)?.length ?? 0;
}
