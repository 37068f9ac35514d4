// What the server asks for its answers: a policy maps a chat request to reply texts and token counts. The dry-run
// simulator plugs in a recipe's seeded simulated policy (activities/recipes/types.ts); tests and benchmarks use echoPolicy.
import { createHash } from 'node:crypto';
import { textOf, words } from './simulated-tokens';

export interface PolicyRequest {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  n: number;
  seed?: number;
  temperature: number;
  maxTokens: number;
}
export interface PolicyReply {
  texts: string[];
  promptTokens: number;
  completionTokens: number[];
}
export type Policy = ((req: PolicyRequest) => PolicyReply) & {
  /** The mean log-prob of the last (assistant) message given the others: answers vLLM's prompt_logprobs
   *  (./chat-answers.ts). */
  meanLogProb?: (req: { model: string; messages: PolicyRequest['messages'] }) => number;
};

/** Short deterministic replies derived from the last message: for benchmarks, where content does not matter. */
export const echoPolicy: Policy = (req) => {
  const last = textOf(req.messages[req.messages.length - 1]?.content);
  const digest = createHash('sha256').update(last).digest('hex').slice(0, 12);
  const texts = Array.from({ length: req.n }, (_, i) => `echo ${digest} #${i}`);
  return { texts, promptTokens: req.messages.reduce((a, m) => a + words(textOf(m.content)), 0), completionTokens: texts.map(words) };
};
