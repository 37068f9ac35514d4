// The trainer adapters by config kind: the one list of trainer kinds. The config schema's trainer sections
// (configs/schema.ts) and every TrainerKind follow from it, so an adapter is added here and nowhere else.
import type { ResumePoint, TrainerAdapter, TrainJob, TrainMethod, TrainStep } from './types';
import { trlAdapter, trlOptionsSchema } from './trl';
import { fairseq2Adapter, fairseq2OptionsSchema } from './fairseq2';
import { openrlhfAdapter, openrlhfOptionsSchema } from './openrlhf';
import { verlAdapter, verlOptionsSchema } from './verl';

/** Each kind's adapter and its own options (the config's trainer section has them beside the common ones). The
 *  order is the config schema's. */
const TRAINERS = {
  trl: {
    adapter: trlAdapter,
    options: trlOptionsSchema,
    description:
      'TRL (SFT, DPO, online DPO) through activities/training/adapters/trl_train.py, which resumes from the highest complete `checkpoint-N`.',
  },
  fairseq2: {
    adapter: fairseq2Adapter,
    options: fairseq2OptionsSchema,
    description:
      "fairseq2 0.4.x (`fairseq2 lm instruction_finetune | preference_finetune`) on a Llama base; the export to Hugging Face is the project's own.",
  },
  openrlhf: {
    adapter: openrlhfAdapter,
    options: openrlhfOptionsSchema,
    description: 'OpenRLHF (`deepspeed --module openrlhf.cli.train_sft | train_dpo`), resuming from the DeepSpeed tag named by `latest`.',
  },
  verl: {
    adapter: verlAdapter,
    options: verlOptionsSchema,
    description: 'verl 0.6.x: SFT (`fsdp_sft_trainer`), and GRPO or PPO with multi-turn rollouts (`main_ppo`) for recipes with online RL.',
  },
} as const;

export type TrainerKind = keyof typeof TRAINERS;
export const TRAINER_KINDS = Object.keys(TRAINERS) as TrainerKind[];
const byKind = <F extends 'adapter' | 'options' | 'description'>(field: F) =>
  Object.fromEntries(TRAINER_KINDS.map((k) => [k, TRAINERS[k][field]])) as { [K in TrainerKind]: (typeof TRAINERS)[K][F] };
type OptionsByKind = { [K in TrainerKind]: (typeof TRAINERS)[K]['adapter'] extends TrainerAdapter<infer O> ? O : never };

/** Each kind's own options schema (the fields its trainer section adds to the common ones). */
export const TRAINER_OPTIONS = byKind('options');

/** Each kind's description in the configuration reference (docs/configuration.md). */
export const TRAINER_DESCRIPTIONS = byKind('description');

/** Each kind's adapter, typed so that a kind's options reach its own adapter without a cast. */
export const TRAINER_ADAPTERS: { [K in TrainerKind]: TrainerAdapter<OptionsByKind[K]> } = byKind('adapter');

/** The adapter's steps for a trainer section of kind K (the section carries the adapter's options). */
export function planTraining<K extends TrainerKind>(kind: K, job: TrainJob, options: OptionsByKind[K], resume?: ResumePoint): TrainStep[] {
  return TRAINER_ADAPTERS[kind].plan(job, options, resume);
}

/** Why an adapter cannot train with a method, or undefined when it can (the one check, for the loader and the stage). */
export function unsupportedMethod(kind: TrainerKind, method: TrainMethod): string | undefined {
  const { methods } = TRAINER_ADAPTERS[kind];
  const list = methods.length > 1 ? `${methods.slice(0, -1).join(', ')} and ${methods.at(-1)}` : methods[0];
  return methods.includes(method) ? undefined : `${kind} trains ${list} only, not ${method}`;
}

/** The adapter kinds that train with a method. */
export function kindsTraining(method: TrainMethod): TrainerKind[] {
  return TRAINER_KINDS.filter((k) => TRAINER_ADAPTERS[k].methods.includes(method));
}
