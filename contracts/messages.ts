// Queries, updates and search attributes: the public control surface of a run (CLI and Temporal UI).
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { IterationProgress, IterationStatus, LoopStatus, Stage, LoopConfig } from './run';

export const loopStatusQuery = defineQuery<LoopStatus>('loopStatus');
export const iterationStatusQuery = defineQuery<IterationStatus>('iterationStatus');
/** The config the iteration runs with (no secrets: configs name env vars). `retry --set` edits a copy of it. */
export const iterationConfigQuery = defineQuery<LoopConfig>('iterationConfig');

/** Pause takes effect at the next stage (iteration) or iteration (loop) boundary; the loop forwards it. */
export const pauseSignal = defineSignal<[boolean]>('setPaused');

export interface RetryRequest {
  /** Stage to re-run from; default: the stage that needs attention. */
  stage?: Stage;
  /** A replacement config (validated by the CLI, e.g. after --set overrides): it applies to the retried iteration
   *  and every later one. */
  config?: LoopConfig;
  /** The `--set key=value` overrides that made `config`, as typed: status and the UI list them. */
  changes?: string[];
}
/** Re-run a stage that needs attention (after fixing its cause). Rejected when nothing needs attention. */
export const retryStageUpdate = defineUpdate<string, [RetryRequest]>('retryStage');

/** Iteration → its loop at each stage change (and when a stage needs attention), for the loop's UI details. */
export const iterationProgressSignal = defineSignal<[IterationProgress]>('iterationProgress');

/** Graceful stop: the loop cancels the running stage (killing its subprocesses), cleans up and completes. */
export const stopSignal = defineSignal<[string]>('stop');

// Typed search attributes (registered by the dev-server script and by ensureSearchAttributes()).
export const RunNameKey = { name: 'CollabRunName', type: 'KEYWORD' } as const;
export const RecipeKey = { name: 'CollabRecipe', type: 'KEYWORD' } as const;
export const IterationKey = { name: 'CollabIteration', type: 'INT' } as const;
export const StageKey = { name: 'CollabStage', type: 'KEYWORD' } as const;
export const NeedsAttentionKey = { name: 'CollabNeedsAttention', type: 'BOOL' } as const;
export const SEARCH_ATTRIBUTES = [RunNameKey, RecipeKey, IterationKey, StageKey, NeedsAttentionKey] as const;

export const loopWorkflowId = (runName: string) => `collab-loop/${runName}`;
export const iterationWorkflowId = (runName: string, iteration: number) => `collab-loop/${runName}/iter-${iteration}`;
/** The loop of an iteration's workflow id (undefined for any other id). */
export const loopIdOfIteration = (workflowId: string): string | undefined => /^(collab-loop\/.+)\/iter-\d+$/.exec(workflowId)?.[1];
