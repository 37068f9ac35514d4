// How a finished iteration moves the loop's carried state on. Plain code (no Temporal import), shared by the loop
// workflow and by `collab-loop continue`, which rebuilds the state of a run that completed after a stop.
import type { IterationSummary, LoopState } from '../contracts/run';

/** Takes a finished iteration into the state the next one starts from. `carriesConfig`: a retry's config (and the
 *  checkpoint it rebased) holds for every later iteration; loops started before the retry-config-v1 patch carried
 *  only the budget. */
export function advance(state: LoopState, summary: IterationSummary, carriesConfig: boolean): void {
  const { config, ...done } = summary;
  state.done.push(carriesConfig ? done : summary);
  if (summary.budget) state.budget = summary.budget;
  if (carriesConfig && config) state.config = config;
  if (carriesConfig && summary.configChanges) state.configChanges = summary.configChanges;
  if (summary.nextCheckpoint) state.checkpoint = summary.nextCheckpoint;
  else if (carriesConfig) state.checkpoint = summary.checkpoint;
  // Each trained role's chain goes on from what it trained into (or what it served, when it had no examples).
  if (summary.models)
    state.checkpoints = Object.fromEntries(
      Object.entries(summary.models).flatMap(([role, m]) =>
        m.kind === 'trained' && m.checkpoint ? [[role, m.nextCheckpoint ?? m.checkpoint]] : [],
      ),
    );
  state.iteration++;
}
