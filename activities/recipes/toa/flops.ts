// Compute accounting of the paper's tables and scaling plot (arXiv 2412.17061 §4; oceanypt/TOA README.md, figures/
// scaling_alpaca_eval.png): per LLM call, flops_per_token(model) × (prompt_tokens + completion_tokens) from the
// server's usage, summed per prompt. oceanypt/TOA ships no FLOPs code, so we use the standard forward-pass estimate
// of Kaplan et al. 2020 (Table 1):
//     flops_per_token = 2·P + 2·n_layer·n_ctx·d_model
// 2·P for the matrix multiplies (one multiply-add per parameter), plus the attention-score term when the model's
// shape is known; with only P given it is the common 2·P·tokens estimate. n_ctx is a fixed per-model context
// (15000 by default: the --max_model_len its servers run with, oceanypt/TOA bash/launch_large_models/
// start_server.py), not the call's length, so the attention term is a per-model constant.
// Counted: policy calls only. The N RM forward passes are the same for every method at equal N, and the paper's FLOPs
// leave them out. Refine / aggregate calls cost more because their prompts are longer — that is the point of counting
// prompt tokens.
import type { TokenUsage } from '../../llm/types';
import { totalTokens } from '../../llm/usage';

export interface ModelCompute {
  /** Parameter count P (non-embedding, if you have it). */
  params: number;
  /** n_ctx of the attention term (default 15000, TOA's); only used with layers and hiddenSize. */
  contextLength?: number;
  /** n_layer and d_model from the model's config: together they add the attention term. */
  layers?: number;
  hiddenSize?: number;
}

/** TOA's servers' --max_model_len (oceanypt/TOA bash/launch_large_models/start_server.py). */
export const DEFAULT_FLOPS_CONTEXT = 15000;

const positive = (x: number | undefined, what: string) => {
  if (x !== undefined && !(Number.isFinite(x) && x > 0)) throw new Error(`flops: ${what} must be a positive number, got ${x}`);
};

export function flopsPerToken(model: ModelCompute): number {
  positive(model.params, 'params');
  positive(model.contextLength, 'contextLength');
  positive(model.layers, 'layers');
  positive(model.hiddenSize, 'hiddenSize');
  const shaped = model.layers !== undefined && model.hiddenSize !== undefined;
  // A context with no shape to apply it to would silently count nothing: say so.
  if (!shaped && (model.layers !== undefined || model.hiddenSize !== undefined || model.contextLength !== undefined))
    throw new Error('flops: the attention term needs both layers and hiddenSize (contextLength alone does nothing)');
  const attention = shaped ? 2 * model.layers! * (model.contextLength ?? DEFAULT_FLOPS_CONTEXT) * model.hiddenSize! : 0;
  return 2 * model.params + attention;
}

export function callFlops(model: ModelCompute, usage: TokenUsage): number {
  for (const [what, n] of [
    ['promptTokens', usage.promptTokens],
    ['completionTokens', usage.completionTokens],
  ] as const)
    if (!Number.isInteger(n) || n < 0) throw new Error(`flops: ${what} must be a non-negative integer, got ${n}`);
  return flopsPerToken(model) * totalTokens(usage);
}

export interface PromptFlops {
  flops: number;
  /** Calls with no usage (e.g. a generation that failed before the server answered): not counted, not guessed. */
  unmeteredCalls: number;
}

/** One prompt's total over its calls (e.g. Results.responses), each model looked up by name. */
export function promptFlops(
  models: Record<string, ModelCompute>,
  calls: ReadonlyArray<{ model: string; usage?: TokenUsage }>,
): PromptFlops {
  let flops = 0;
  let unmeteredCalls = 0;
  for (const c of calls) {
    const m = Object.hasOwn(models, c.model) ? models[c.model] : undefined;
    if (!m) throw new Error(`flops: no parameter count for model "${c.model}"`);
    if (c.usage) flops += callFlops(m, c.usage);
    else unmeteredCalls++;
  }
  return { flops, unmeteredCalls };
}
