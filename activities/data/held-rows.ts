// Rows a data build may still drop, kept out of its heap until it decides: a handle per row, the row read back by its
// handle. Debate's maintained critic examples are held so (activities/recipes/debate/data.ts): which of them are kept
// is drawn once every record is in. DatasetFiles holds them in a file beside the build's datasets; this one in memory,
// for builds over records that are in memory already (buildData, tests).

export interface HeldRows {
  /** Keeps `line`; its handle. */
  put(line: string): number;
  get(handle: number): string;
}

export function heldInMemory(): HeldRows {
  const lines: string[] = [];
  return {
    put: (line) => lines.push(line) - 1,
    get: (handle) => lines[handle],
  };
}
