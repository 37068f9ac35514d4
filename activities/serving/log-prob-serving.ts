// Which served models answer prompt log-probs (activities/llm/logprob-api.ts): vLLM and the dry-run simulator do
// (simulated agents included); `transformers serve` and a custom command do not, so their log-probs come from the
// checkpoint itself (activities/llm/mean_logprobs.py). An external server is taken to be vLLM.
import type { LoopConfig } from '../../contracts/run';

export const servesLogProbs = (config: Pick<LoopConfig, 'server' | 'agents'>): boolean =>
  !!config.agents || ['vllm', 'simulator', 'external'].includes(config.server.kind);
