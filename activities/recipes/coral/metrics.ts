// CoRal's metrics under the seed's names (seed brief A.3), each a per-conversation value averaged over all
// conversations (every sample of a task counts on its own).
import type { Compat } from './compat';
import type { CoralConversation } from './conversation';

export interface CoralMetrics {
  /** Headline CoRal metric: the conversation ended in agreement and the agreed answer is correct. */
  agreement_correctness: number;
  /** fixed: the final answer is correct. seed: ANY turn's answer was correct (the seed's definition). */
  final_success_rate: number;
  /** Share of conversations that ended in agreement. */
  agreement_rate: number;
  /** Share of generated turns whose extraction gave a usable answer. */
  valid_answer_rate: number;
  /** Mean conversation length including the question (turn 0). */
  total_turns: number;
  /** Index of the first correct turn (question = 0), or max turns if none. */
  n_turns_to_success: number;
  /** Mean completion tokens per conversation (agent turns and extraction). */
  conv_len: number;
  /** All tokens (prompt + completion) of all calls. */
  total_tokens: number;
  conversations: number;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function coralMetrics(records: CoralConversation[], compat: Compat): CoralMetrics {
  const per = records.map((r) => {
    const gen = r.turns.slice(1);
    const firstCorrect = gen.findIndex((t) => t.correct);
    const maxTurns = Math.max(gen.length, 1);
    return {
      agreementCorrect: r.agreed && !!gen[gen.length - 1]?.correct ? 1 : 0,
      // SEED-COMPAT: the seed counts a conversation as a success when any turn was right.
      success: (compat === 'seed' ? gen.some((t) => t.correct) : r.correct) ? 1 : 0,
      agreed: r.agreed ? 1 : 0,
      valid: gen.length ? gen.filter((t) => t.valid).length / gen.length : 0,
      turns: r.turns.length,
      toSuccess: firstCorrect === -1 ? maxTurns : firstCorrect + 1,
      completion: r.usage.completionTokens,
      tokens: r.usage.promptTokens + r.usage.completionTokens,
    };
  });
  return {
    agreement_correctness: mean(per.map((p) => p.agreementCorrect)),
    final_success_rate: mean(per.map((p) => p.success)),
    agreement_rate: mean(per.map((p) => p.agreed)),
    valid_answer_rate: mean(per.map((p) => p.valid)),
    total_turns: mean(per.map((p) => p.turns)),
    n_turns_to_success: mean(per.map((p) => p.toSuccess)),
    conv_len: mean(per.map((p) => p.completion)),
    total_tokens: per.reduce((a, p) => a + p.tokens, 0),
    conversations: records.length,
  };
}
