// The settings `compat` decides when the config leaves them out. `fixed` keeps our defaults; `seed` takes the seeds':
// SEED-COMPAT: 10 attempts for the user simulator and for a proactive candidate's JSON (CollabLLM
// collabllm/modules/user_simulator.py and llm_collaborator.py, num_retries=10), 50 for the accuracy and
// interactivity judges (examples/metrics/accuracy.py, interactivity.py, num_retries=50), one for the extractor
// (collabllm/metric.py raises on an unreadable extraction), and 2048 judge tokens (verl-recipe
// collabllm/train_rl_collabllm.sh, llm_judge_kwargs.max_tokens; the original sets none). The token count's span
// is the other `compat` branch (metrics.ts tokenAmount).
import type { CollabllmRecipeConfig } from './config';

export type CollabCompat = CollabllmRecipeConfig['compat'];

const DEFAULTS = {
  fixed: { parseRetries: 3, judgeRetries: 3, extractRetries: 3, judgeMaxTokens: 512 },
  seed: { parseRetries: 9, judgeRetries: 49, extractRetries: 0, judgeMaxTokens: 2048 },
} as const satisfies Record<CollabCompat, unknown>;

/** Re-asks of the user simulator, a proactive candidate, the judges and the extractor, and the judges' reply length;
 *  an explicit field first. */
export function compatSettings(cfg: Pick<CollabllmRecipeConfig, 'compat' | 'user' | 'proact' | 'judge'>) {
  const d = DEFAULTS[cfg.compat];
  return {
    userParseRetries: cfg.user.parseRetries ?? d.parseRetries,
    proactParseRetries: cfg.proact.parseRetries ?? d.parseRetries,
    judgeRetries: cfg.judge.parseRetries ?? d.judgeRetries,
    extractRetries: cfg.judge.extractRetries ?? d.extractRetries,
    judgeMaxTokens: cfg.judge.maxTokens ?? d.judgeMaxTokens,
  };
}
