// What `recipe.data` means for the data builders once `compat` has filled in the defaults, and the combinations it
// rejects. An explicit field always wins over the compat default.
import type { CoralRecipeConfig } from './config';
import type { Discourage, PairChoice } from './pair-choice';
import type { PreferencePairOptions } from './preference-pairs';
import type { SftOptions, SftSelection } from './sft';

// SEED-COMPAT: the seed's iterative_training.py builds SFT from all turns of the first 10 conversations per question
// and chooses DPO pairs by reward gap (sft.ts, pair-choice.ts); fixed keeps correct agreements and shuffled pairs.
const sftSelection = (cfg: CoralRecipeConfig): SftSelection =>
  cfg.data.sftSelection ?? (cfg.compat === 'seed' ? 'all_turns' : 'correct_agreement');
const pairChoice = (cfg: CoralRecipeConfig): PairChoice => cfg.data.pairChoice ?? (cfg.compat === 'seed' ? 'reward_gap' : 'shuffled');
const discourage = (cfg: CoralRecipeConfig): Discourage | undefined =>
  cfg.data.discourageAgreement ? 'agreement' : cfg.data.discourageLength ? 'length' : undefined;

export function coralDataOptions(cfg: CoralRecipeConfig, seed: number): { sft: SftOptions; pairs: PreferencePairOptions } {
  return {
    sft: { maxPerTask: cfg.data.maxPerTask, selection: sftSelection(cfg) },
    pairs: {
      maxPerTask: cfg.data.maxPerTask,
      maxPairsPerTurn: cfg.data.maxPairsPerTurn,
      seed,
      choice: pairChoice(cfg),
      discourage: discourage(cfg),
      compat: cfg.compat,
    },
  };
}

export function checkCoralData(cfg: CoralRecipeConfig): { field: string; message: string } | undefined {
  const { discourageAgreement, discourageLength } = cfg.data;
  if (discourageAgreement && discourageLength)
    return {
      field: 'recipe.data.discourageLength',
      message: 'cannot be combined with discourageAgreement (the seed silently applies only discourage_agreement); pick one',
    };
  const field = discourageAgreement ? 'discourageAgreement' : discourageLength ? 'discourageLength' : undefined;
  if (field && pairChoice(cfg) !== 'reward_gap')
    return { field: `recipe.data.${field}`, message: 'needs recipe.data.pairChoice reward_gap (the default under compat: seed)' };
  return undefined;
}
