// How CoRal's agents are sampled once `compat` has filled in the defaults; an explicit field wins.
// SEED-COMPAT: the seed samples every turn, evaluation and tree sampling alike, at its chat roles' `sampling_temp`
// 0.2 with no top_p, so 1 (collaborative-reasoner lightning_modules/configs/common/ts_interaction_model.yaml,
// utils/chat_utils.py). fixed: greedy evaluation, so one evaluation of a checkpoint repeats, and 0.8 / top-p 0.9 for
// the training trees, whose candidates must differ for preference pairs.
import type { Decoding } from '../../llm/types';
import type { Split } from '../types';
import type { CoralRecipeConfig } from './config';

export function agentDecoding(cfg: CoralRecipeConfig, split: Split): Decoding {
  const seed = cfg.compat === 'seed';
  const temperature = split === 'eval' ? (cfg.evalTemperature ?? (seed ? 0.2 : 0)) : (cfg.trainTemperature ?? (seed ? 0.2 : 0.8));
  return { temperature, topP: cfg.topP ?? (seed ? 1 : 0.9), maxTokens: cfg.maxTokens };
}
