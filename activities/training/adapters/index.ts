// The trainer adapters by config kind.
import type { TrainerAdapter } from './types';
import { trlAdapter } from './trl';
import { fairseq2Adapter } from './fairseq2';
import { openrlhfAdapter } from './openrlhf';
import { verlAdapter } from './verl';

export const TRAINER_ADAPTERS = {
  trl: trlAdapter,
  fairseq2: fairseq2Adapter,
  openrlhf: openrlhfAdapter,
  verl: verlAdapter,
} as const satisfies Record<string, TrainerAdapter<never>>;

export type AdapterKind = keyof typeof TRAINER_ADAPTERS;
