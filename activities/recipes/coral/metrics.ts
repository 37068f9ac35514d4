// CoRal's metrics under the seed's names (collaborative-reasoner evaluators/): each is a per-conversation value averaged over all
// conversations (every sample of a task counts on its own). Only the chosen turns count, never tree siblings.
import type { Compat } from './compat';
import type { CoralConversation } from './conversation';
import { socialMetrics } from './social-metrics';
import { meanOf } from '../shared/mean';
import { totalTokens } from '../../llm/usage';
import type { MetricSpec } from '../../report/metric-kinds';

/** What each metric below is, for the report's plots. persuasion_quality is a mean difference of scores (−1…1). */
export const CORAL_METRIC_KINDS: readonly MetricSpec[] = [
  {
    match: /^(agreement_correctness|final_success_rate|agreement_rate|valid_answer_rate|assert_rate|persuade_rate)$/,
    kind: 'rate',
  },
  { match: /^(avg_turns|n_turns_to_success|total_tokens|avg_tokens_per_conversation|conversations)$/, kind: 'count' },
  { match: 'persuasion_quality', kind: 'value' },
];

export interface CoralMetrics {
  /** Headline: the conversation ended in agreement and the agreed answer is correct (no agreement scores 0). */
  agreement_correctness: number;
  /** fixed: the final answer (agreed, else the last valid belief) is correct. seed: ANY turn was correct. */
  final_success_rate: number;
  /** The conversation ended in agreement (the seed's `agreement`). */
  agreement_rate: number;
  /** Share of a conversation's generated turns whose extraction is usable. */
  valid_answer_rate: number;
  /** Generated turns per conversation (the seed's `total_turns` also counts the question: add 1). */
  avg_turns: number;
  /** Index of the first correct turn (question = 0), or the conversation's max turns if none was correct. */
  n_turns_to_success: number;
  /** Prompt + completion tokens of every call (agent turns and extractions), summed over conversations. */
  total_tokens: number;
  avg_tokens_per_conversation: number;
  assert_rate: number;
  persuade_rate: number;
  persuasion_quality: number;
  conversations: number;
}

const mean = (xs: readonly number[]) => meanOf(xs) ?? 0;

/** Zero conversations give zeros (with `conversations: 0`), never NaN: metrics travel as JSON numbers. */
export function coralMetrics(records: readonly CoralConversation[], compat: Compat): CoralMetrics {
  const per = records.map((r) => {
    const gen = r.turns.slice(1);
    const last = gen[gen.length - 1];
    const firstCorrect = gen.findIndex((t) => t.correct);
    const social = socialMetrics(r);
    return {
      agreementCorrect: r.agreed && last?.correct ? 1 : 0,
      // SEED-COMPAT: the seed's "final" success counts a conversation as solved when any turn was right, even if
      // the agents then agreed on a wrong answer.
      success: (compat === 'seed' ? firstCorrect !== -1 : r.correct) ? 1 : 0,
      agreed: r.agreed ? 1 : 0,
      valid: gen.length ? gen.filter((t) => t.valid).length / gen.length : 0,
      turns: gen.length,
      toSuccess: firstCorrect === -1 ? r.maxTurns : firstCorrect + 1,
      tokens: totalTokens(r.usage),
      ...social,
    };
  });
  const total = per.reduce((a, p) => a + p.tokens, 0);
  return {
    agreement_correctness: mean(per.map((p) => p.agreementCorrect)),
    final_success_rate: mean(per.map((p) => p.success)),
    agreement_rate: mean(per.map((p) => p.agreed)),
    valid_answer_rate: mean(per.map((p) => p.valid)),
    avg_turns: mean(per.map((p) => p.turns)),
    n_turns_to_success: mean(per.map((p) => p.toSuccess)),
    total_tokens: total,
    avg_tokens_per_conversation: records.length ? total / records.length : 0,
    assert_rate: mean(per.map((p) => p.assert_rate)),
    persuade_rate: mean(per.map((p) => p.persuade_rate)),
    persuasion_quality: mean(per.map((p) => p.persuasion_quality)),
    conversations: records.length,
  };
}
