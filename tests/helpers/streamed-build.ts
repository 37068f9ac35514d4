// A recipe's streaming data build (RecipeRuntime.dataBuilder) fed records one at a time, as build-data feeds it:
// the rows it wrote, by dataset, its counts, and how many records had arrived when it wrote its first row.
import type { RecipeRuntime, TrainingData } from '../../activities/recipes/types';

export interface StreamedBuild {
  rows: Record<string, string[]>;
  counts: Record<string, number>;
  firstRowAfter?: number;
}

export function streamBuild<Build>(runtime: RecipeRuntime<unknown, Build>, records: readonly Build[]): StreamedBuild {
  const out: StreamedBuild = { rows: {}, counts: {} };
  let added = 0;
  const write = (name: string, line: string) => {
    (out.rows[name] ??= []).push(line);
    out.firstRowAfter ??= added;
  };
  const builder = runtime.dataBuilder!({
    row: (role, dataset, line) => write(`${role}/${dataset}`, line),
    extra: (name, line) => write(`extra/${name}`, line),
  });
  for (const r of records) {
    builder.add(r);
    added++;
  }
  out.counts = builder.finish();
  return out;
}

/** The rows of `buildData`'s result by the same names (the non-empty datasets), each dataset's rows sorted. */
export function sortedRows(data: TrainingData) {
  const named = [
    ...Object.entries(data.byRole).flatMap(([role, sets]) =>
      Object.entries(sets).map(([d, lines]) => [`${role}/${d}`, lines ?? []] as const),
    ),
    ...Object.entries(data.extra ?? {}).map(([n, lines]) => [`extra/${n}`, lines] as const),
  ];
  return Object.fromEntries(named.filter(([, lines]) => lines.length).map(([name, lines]) => [name, [...lines].sort()]));
}

/** The same for a streamed build's rows. */
export const sortedStreamRows = (rows: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(rows).map(([name, lines]) => [name, [...lines].sort()]));
