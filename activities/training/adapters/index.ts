// The trainer adapters by config kind.
import type { ResumePoint, TrainerAdapter, TrainJob, TrainMethod, TrainStep } from './types';
import { trlAdapter } from './trl';
import { fairseq2Adapter } from './fairseq2';
import { openrlhfAdapter } from './openrlhf';
import { verlAdapter } from './verl';

const ADAPTERS = {
  trl: trlAdapter,
  fairseq2: fairseq2Adapter,
  openrlhf: openrlhfAdapter,
  verl: verlAdapter,
} as const;

export type AdapterKind = keyof typeof ADAPTERS;
type OptionsByKind = { [K in AdapterKind]: (typeof ADAPTERS)[K] extends TrainerAdapter<infer O> ? O : never };

/** Each kind's adapter, typed so that a kind's options reach its own adapter without a cast. */
export const TRAINER_ADAPTERS: { [K in AdapterKind]: TrainerAdapter<OptionsByKind[K]> } = ADAPTERS;

/** The adapter's steps for a trainer section of kind K (the section carries the adapter's options). */
export function planTraining<K extends AdapterKind>(kind: K, job: TrainJob, options: OptionsByKind[K], resume?: ResumePoint): TrainStep[] {
  return TRAINER_ADAPTERS[kind].plan(job, options, resume);
}

/** Why an adapter cannot train with a method, or undefined when it can (the one check, for the loader and the stage). */
export function unsupportedMethod(kind: AdapterKind, method: TrainMethod): string | undefined {
  const { methods } = TRAINER_ADAPTERS[kind];
  const list = methods.length > 1 ? `${methods.slice(0, -1).join(', ')} and ${methods.at(-1)}` : methods[0];
  return methods.includes(method) ? undefined : `${kind} trains ${list} only, not ${method}`;
}

/** The adapter kinds that train with a method. */
export function kindsTraining(method: TrainMethod): AdapterKind[] {
  return (Object.keys(ADAPTERS) as AdapterKind[]).filter((k) => TRAINER_ADAPTERS[k].methods.includes(method));
}
