// The loop's tracking activity: after every iteration (and once more when the run ends) it sends what finished so
// far to each configured tracker. The trackers write side by side, each within its own `timeoutSeconds`
// (tracking/bounded-write.ts): a tracker that is down or never answers is reported in the outcomes and delays no
// other. Every tracker is idempotent on its own, so a retry or the next call re-sends nothing twice.
import path from 'node:path';
import { writeFileAtomic } from '../artifacts/store';
import { localStateDir } from '../storage/run-storage';
import { reportHtml } from '../report/report-html';
import type { ActivitySignatures } from '../../contracts/activities';
import type { TrackerOutcome } from '../../contracts/tracking';
import { recipeRuntime } from '../recipes/runtime';
import { writeWithin } from '../tracking/bounded-write';
import { logToMlflow, mlflowRunPage } from '../tracking/mlflow';
import { trackingPayload } from '../tracking/payload';
import { logToWandb } from '../tracking/wandb';

type Input = Parameters<ActivitySignatures['trackIteration']>[0];

export async function trackIteration({ runName, config, iterations, final }: Input): Promise<TrackerOutcome[]> {
  const t = config.tracking;
  if (!t) return [];
  const payload = trackingPayload(runName, config, iterations, final);
  // Rendered before the trackers' clocks start: it is this worker's own work, not a tracker's answer.
  const html =
    t.mlflow?.uploadReport || t.wandb ? await reportHtml(runName, iterations, { config, recipe: () => recipeRuntime(config) }) : '';
  const reportFile = async () => {
    const file = path.join(localStateDir(config), 'reports', runName, 'report.html');
    writeFileAtomic(file, html);
    return file;
  };
  const { mlflow, wandb } = t;
  return Promise.all([
    ...(mlflow
      ? [
          writeWithin('mlflow', mlflow.timeoutSeconds, async (signal) => {
            const run = await logToMlflow(mlflow, payload, async () => html, signal);
            return { where: mlflowRunPage(mlflow.trackingUri, run.experimentId, run.runId) };
          }),
        ]
      : []),
    ...(wandb
      ? [writeWithin('wandb', wandb.timeoutSeconds, (signal) => logToWandb(wandb, payload, localStateDir(config), reportFile, signal))]
      : []),
  ]);
}
