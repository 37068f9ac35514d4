// CoRal's metrics under the seed's names (collaborative-reasoner evaluators/): each is a per-conversation value averaged over all
// conversations (every sample of a task counts on its own). Only the chosen turns count, never tree siblings.
import type { Compat } from './compat';
import type { CoralConversation } from './conversation';
import { socialMetrics } from './social-metrics';
import { foldRecords, type MetricsFold, RunningMean } from '../metrics-fold';
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

// A type, not an interface: it is a Record<string, number> where the generic stages take one.
export type CoralMetrics = {
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
};

const RATES = [
  'agreement_correctness',
  'final_success_rate',
  'agreement_rate',
  'valid_answer_rate',
  'avg_turns',
  'n_turns_to_success',
  'assert_rate',
  'persuade_rate',
  'persuasion_quality',
] as const;

/** The metrics as conversations stream past (metrics-fold.ts): running means, so evaluation memory stays flat.
 *  Zero conversations give zeros (with `conversations: 0`), never NaN: metrics travel as JSON numbers. */
export function coralMetricsFold(compat: Compat): MetricsFold<CoralConversation, CoralMetrics> {
  const means = Object.fromEntries(RATES.map((k) => [k, new RunningMean()])) as Record<(typeof RATES)[number], RunningMean>;
  let tokens = 0;
  let conversations = 0;
  return {
    add(r) {
      const gen = r.turns.slice(1);
      const last = gen[gen.length - 1];
      const firstCorrect = gen.findIndex((t) => t.correct);
      const social = socialMetrics(r);
      means.agreement_correctness.add(r.agreed && last?.correct ? 1 : 0);
      // SEED-COMPAT: the seed's "final" success counts a conversation as solved when any turn was right, even if
      // the agents then agreed on a wrong answer.
      means.final_success_rate.add((compat === 'seed' ? firstCorrect !== -1 : r.correct) ? 1 : 0);
      means.agreement_rate.add(r.agreed ? 1 : 0);
      means.valid_answer_rate.add(gen.length ? gen.filter((t) => t.valid).length / gen.length : 0);
      means.avg_turns.add(gen.length);
      means.n_turns_to_success.add(firstCorrect === -1 ? r.maxTurns : firstCorrect + 1);
      means.assert_rate.add(social.assert_rate);
      means.persuade_rate.add(social.persuade_rate);
      means.persuasion_quality.add(social.persuasion_quality);
      tokens += totalTokens(r.usage);
      conversations++;
    },
    result: (): CoralMetrics => ({
      agreement_correctness: means.agreement_correctness.value,
      final_success_rate: means.final_success_rate.value,
      agreement_rate: means.agreement_rate.value,
      valid_answer_rate: means.valid_answer_rate.value,
      avg_turns: means.avg_turns.value,
      n_turns_to_success: means.n_turns_to_success.value,
      total_tokens: tokens,
      avg_tokens_per_conversation: conversations ? tokens / conversations : 0,
      assert_rate: means.assert_rate.value,
      persuade_rate: means.persuade_rate.value,
      persuasion_quality: means.persuasion_quality.value,
      conversations,
    }),
  };
}

export const coralMetrics = (records: readonly CoralConversation[], compat: Compat): CoralMetrics =>
  foldRecords(coralMetricsFold(compat), records);
