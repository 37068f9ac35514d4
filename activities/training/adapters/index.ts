// The trainer adapters by config kind.
import type { TrainerAdapter } from './types';
import { trlAdapter } from './trl';

export const TRAINER_ADAPTERS = {
  trl: trlAdapter,
} as const satisfies Record<string, TrainerAdapter<never>>;

export type AdapterKind = keyof typeof TRAINER_ADAPTERS;
