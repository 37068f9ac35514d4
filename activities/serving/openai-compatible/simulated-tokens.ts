// How the simulator counts tokens: no tokenizer, just message headers and words, so `/tokenize` and the prompt
// log-probs of a chat completion agree on where the last message starts.
export const textOf = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c ?? ''));
export const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** The simulator's tokens: one per message header and one per word; `/tokenize` with add_generation_prompt adds the
 *  assistant header. So the prompt_logprobs after a prefix's count are exactly the last message's words. */
export const simulatedTokens = (messages: ReadonlyArray<{ content: unknown }>, addGenerationPrompt: boolean) =>
  messages.reduce((a, m) => a + 1 + words(textOf(m.content)), 0) + (addGenerationPrompt ? 1 : 0);
