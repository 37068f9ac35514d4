// How ColBench's agent and human are sampled once `compat` has filled in the defaults; an explicit field wins.
// SEED-COMPAT: the seed evaluates at its agent's sampling temperature, 1.0 (sweet_rl scripts/simulate_interactions.py
// `temperature`, which the README's evaluation commands leave as it is; top_p 1 and 1024 tokens, as here), and lets
// the human write up to 4096 tokens (sweet_rl/environments/human_interaction_env.py, temperature 0 as here); fixed
// evaluates greedily, so one evaluation of a checkpoint is repeatable, and caps the human at 512 tokens (its reply is
// cut to 400 / 1000 characters anyway).
import type { Decoding } from '../../llm/types';
import type { Split } from '../types';
import type { ColbenchRecipeConfig } from './config';

export const evalTemperature = (cfg: ColbenchRecipeConfig): number => cfg.evalTemperature ?? (cfg.compat === 'seed' ? 1 : 0);
export const humanMaxTokens = (cfg: ColbenchRecipeConfig): number => cfg.human.maxTokens ?? (cfg.compat === 'seed' ? 4096 : 512);

export function colbenchDecoding(cfg: ColbenchRecipeConfig, split: Split): { agent: Decoding; human: Decoding } {
  return {
    agent: { temperature: split === 'eval' ? evalTemperature(cfg) : cfg.trainTemperature, topP: cfg.topP, maxTokens: cfg.maxTokens },
    human: { temperature: cfg.human.temperature, maxTokens: humanMaxTokens(cfg) },
  };
}
