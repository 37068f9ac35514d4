// A streaming data build (RecipeRuntime.dataBuilder) over records already in memory, its rows kept as TrainingData:
// what `buildData` returns for a recipe whose rows are built by its builder, so the rows are made in one place.
import { heldInMemory } from '../data/held-rows';
import type { DataBuilder, RowSink, TrainingData } from './types';

/** `into`: the datasets `buildData` always returned, empty or not (a builder's sink only sees rows). */
export function collectedData<Build>(
  builder: (sink: RowSink) => DataBuilder<Build>,
  records: Iterable<Build>,
  into: TrainingData = { byRole: {}, counts: {} },
): TrainingData {
  const data = into;
  const b = builder({
    row: (role, dataset, line) => {
      const rows = (data.byRole[role] ??= { sft: [], dpo: [] });
      (rows[dataset] ??= []).push(line);
    },
    extra: (name, line) => {
      ((data.extra ??= {})[name] ??= []).push(line);
    },
    held: heldInMemory,
  });
  for (const r of records) b.add(r);
  data.counts = b.finish();
  return data;
}

/** No rows yet for each of `roles`: what a recipe's buildData names even when it built nothing. */
export const emptyDatasets = (roles: readonly string[]): TrainingData => ({
  byRole: Object.fromEntries(roles.map((r) => [r, { sft: [], dpo: [] }])),
  counts: {},
});
