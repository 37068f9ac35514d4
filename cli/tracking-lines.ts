// Where each tracker's output went, or why it was not written: `demo` prints every tracker, `status` the written
// ones (its "tracking failed" line already names the others).
import type { TrackerOutcome } from '../contracts/tracking';

const LABEL: Record<TrackerOutcome['tracker'], string> = { mlflow: 'MLflow', wandb: 'W&B' };

export function trackerLine(o: TrackerOutcome): string {
  if (o.state !== 'written') return `${LABEL[o.tracker]}: not written (${o.state}): ${o.error ?? ''}`;
  return `${LABEL[o.tracker]}: ${o.where}${o.hint ? ` (${o.hint})` : ''}`;
}

export const writtenTrackerLines = (outcomes: readonly TrackerOutcome[] = []) =>
  outcomes.filter((o) => o.state === 'written').map(trackerLine);
