// What one `tracking:` call did with each tracker: the trackIteration activity returns it, the loop keeps it in its
// status and result, and `status`/`demo` print where each tracker's output went or why it was not written.

export type TrackerName = 'mlflow' | 'wandb';

export interface TrackerOutcome {
  tracker: TrackerName;
  /** `timed out`: no answer within the tracker's `timeoutSeconds`; its requests were aborted. */
  state: 'written' | 'failed' | 'timed out';
  /** Where the output is: the MLflow run's page, W&B's run directory (offline) or page (online). */
  where?: string;
  /** What to do with it next, e.g. the `wandb sync` command that uploads offline runs. */
  hint?: string;
  /** Why it was not written, starting with the config field (`tracking.mlflow…`). */
  error?: string;
}

/** The failures of one call as one line (undefined when every tracker was written). */
export function trackingFailure(outcomes: readonly TrackerOutcome[]): string | undefined {
  const errors = outcomes.filter((o) => o.state !== 'written').map((o) => o.error ?? `tracking.${o.tracker}: ${o.state}`);
  return errors.length ? errors.join('; ') : undefined;
}
