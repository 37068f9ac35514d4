// What `retry --set` may change in a running loop. A change holds for the retried iteration and every later one;
// these fields name where the run's data is or what it is, so a new value would strand what the run has done.
import type { LoopConfig } from '../contracts/config';

/** A config as the overrides left it, before validation (so a fixed field is refused before anything else). */
type RawConfig = { [key: string]: unknown; recipe?: { name?: unknown } };

interface FixedField {
  field: string;
  value: (c: RawConfig) => unknown;
  why: string;
}

const FIXED: FixedField[] = [
  {
    field: 'recipe.name',
    value: (c) => c.recipe?.name,
    why: "the run's records, metrics and datasets are this recipe's; start another run for another recipe",
  },
  { field: 'name', value: (c) => c.name, why: 'it names the run in Temporal and in its storage' },
  { field: 'stateDir', value: (c) => c.stateDir, why: "the run's artifacts, cached answers and checkpoints are there" },
  { field: 'storage', value: (c) => c.storage, why: "the run's artifacts, cached answers and checkpoints are in it" },
];

export interface RefusedChange {
  field: string;
  why: string;
}

/** The first field the overrides changed that a running loop cannot take a new value for, and why. */
export function refusedFixedField(before: LoopConfig, after: RawConfig): RefusedChange | undefined {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const fixed = FIXED.find((f) => !same(f.value(before as unknown as RawConfig), f.value(after)));
  return fixed && { field: fixed.field, why: `cannot change in a running loop: ${fixed.why}` };
}

/** A new baseCheckpoint once an iteration has trained (`trainedFrom`: the checkpoint the run's chain already continues
 *  from), which the loop could no longer honour. */
export function refusedRebase(before: LoopConfig, after: LoopConfig, o: { trainedFrom?: string }): RefusedChange | undefined {
  if (o.trainedFrom && before.baseCheckpoint !== after.baseCheckpoint)
    return {
      field: 'baseCheckpoint',
      why: `cannot change once an iteration has trained: the run goes on from ${o.trainedFrom}; start a new run from another base`,
    };
  return undefined;
}
