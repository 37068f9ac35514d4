// The loop's tracking activity: after every iteration (and once more when the run ends) it sends what finished so
// far to each configured tracker. Every tracker is idempotent on its own, so a retry re-sends nothing twice.
import path from 'node:path';
import { writeFileAtomic } from '../artifacts/store';
import { localStateDir } from '../storage/run-storage';
import { reportHtml } from '../report/report-html';
import type { CollabActivities } from '../../contracts/activities';
import { recipeRuntime } from '../recipes/runtime';
import { logToMlflow } from '../tracking/mlflow';
import { trackingPayload } from '../tracking/payload';
import { logToWandb } from '../tracking/wandb';

type Input = Parameters<CollabActivities['trackIteration']>[0];

export async function trackIteration({ runName, config, iterations, final }: Input): Promise<void> {
  const t = config.tracking;
  if (!t) return;
  const payload = trackingPayload(runName, config, iterations, final);
  let html: Promise<string> | undefined;
  const report = () => (html ??= reportHtml(runName, iterations, { config, recipe: () => recipeRuntime(config) }));
  const reportFile = async () => {
    const file = path.join(localStateDir(config), 'reports', runName, 'report.html');
    writeFileAtomic(file, await report());
    return file;
  };
  // One after the other: a failure of the first is retried with the second not yet sent, never half of each.
  if (t.mlflow) await logToMlflow(t.mlflow, payload, report);
  if (t.wandb) await logToWandb(t.wandb, payload, localStateDir(config), reportFile);
}
