// A recipe's streaming data build (RecipeRuntime.dataBuilder) against its in-memory `buildData`: the rows may come
// in another order (plan order, not sorted), never other rows.
import { heldInMemory } from '../../activities/data/held-rows';
import type { RecipeRuntime, TrainingData } from '../../activities/recipes/types';

type Rows = Record<string, string[]>;

/** The records fed to the builder in the given order: each dataset's rows (sorted), the counts, and how many records
 *  had been added when the first row was written. */
export function streamedBuild<B>(runtime: Pick<RecipeRuntime<unknown, B>, 'dataBuilder'>, records: readonly B[]) {
  const rows: Rows = {};
  let added = 0;
  let firstRowAt: number | undefined;
  const b = runtime.dataBuilder({
    row: (role, dataset, line) => {
      (rows[`${role}/${dataset}`] ??= []).push(line);
      firstRowAt ??= added;
    },
    extra: (name, line) => (rows[`extra/${name}`] ??= []).push(line),
    held: heldInMemory,
  });
  for (const r of records) {
    b.add(r);
    added++;
  }
  const counts = b.finish();
  for (const lines of Object.values(rows)) lines.sort();
  return { rows, counts, firstRowAt };
}

/** `buildData`'s rows the same way: each non-empty dataset's rows, sorted. */
export function builtRows(data: TrainingData): Rows {
  const rows: Rows = {};
  for (const [role, d] of Object.entries(data.byRole))
    for (const [dataset, lines] of Object.entries(d)) if (lines?.length) rows[`${role}/${dataset}`] = [...lines].sort();
  for (const [name, lines] of Object.entries(data.extra ?? {})) if (lines.length) rows[`extra/${name}`] = [...lines].sort();
  return rows;
}
