// One numbering everywhere: iterations are counted from 0, as in workflow ids (`<run>/iter-<k>`), checkpoint
// directories (iteration k serves `iter-k`), manifests and the report's columns. Every place that shows "which
// iteration" to a user (status, list, demo progress, the Temporal UI's details) says it through these two.

/** `iteration 1 (of 0–2)` while running; `iterations 0–2 done` when finished; `stopped in iteration 1 (of 0–2)`. */
export function iterationLabel(o: { iteration: number; iterations: number; finished?: boolean; stopped?: boolean }): string {
  const range = `0–${o.iterations - 1}`;
  if (o.stopped) return `stopped in iteration ${Math.min(o.iteration, o.iterations - 1)} (of ${range})`;
  if (o.finished || o.iteration >= o.iterations) return `iterations ${range} done`;
  return `iteration ${o.iteration} (of ${range})`;
}

/** The last path component of a checkpoint directory (`…/checkpoints/demo/iter-1` → `iter-1`). */
export const checkpointName = (checkpoint: string) => checkpoint.replace(/\/+$/, '').split('/').pop() ?? checkpoint;
