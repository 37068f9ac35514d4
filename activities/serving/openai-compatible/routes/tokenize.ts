// POST /tokenize, as vLLM serves it for chat messages (activities/llm/logprob-api.ts asks it where the last
// message starts): the simulator's token count, no token ids.
import { simulatedTokens } from '../simulated-tokens';
import { invalid, orAnswerError, parseJson, type RouteHandler, readBody, sendJson } from '../json-http';

export const tokenizeRoute: RouteHandler = (req, res) =>
  readBody(req, res, (text) => {
    const count = orAnswerError(res, () => tokenCount(text));
    if (count !== undefined) sendJson(res, 200, { count, max_model_len: 1 << 20, tokens: [] });
  });

function tokenCount(text: string): number {
  const b = parseJson(text) as Record<string, unknown>;
  if (!Array.isArray(b?.messages)) throw invalid('"messages" must be an array', 'messages');
  return simulatedTokens(b.messages, b.add_generation_prompt !== false);
}
