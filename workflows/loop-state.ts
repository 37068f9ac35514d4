// How a finished iteration moves the loop's carried state on. Plain code (no Temporal import), shared by the loop
// workflow and by `collab-loop continue`, which rebuilds the state of a run that completed after a stop.
import type { IterationSummary, LoopState } from '../contracts/run';

/** Takes a finished iteration into the state the next one starts from. */
export function advance(state: LoopState, summary: IterationSummary): void {
  state.done.push(summary);
  if (summary.budget) state.budget = summary.budget;
  if (summary.nextCheckpoint) state.checkpoint = summary.nextCheckpoint;
  // Each trained role's chain goes on from what it trained into (or what it served, when it had no examples).
  if (summary.models)
    state.checkpoints = Object.fromEntries(
      Object.entries(summary.models).flatMap(([role, m]) =>
        m.kind === 'trained' && m.checkpoint ? [[role, m.nextCheckpoint ?? m.checkpoint]] : [],
      ),
    );
  state.iteration++;
}
