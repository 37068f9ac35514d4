// Temporal Worker Versioning (https://docs.temporal.io/worker-deployments): a versioned worker declares a deployment
// name and a build ID; the server sends a run's workflow tasks to the build its versioning behaviour names (the
// iteration stays on the build it started on; the loop follows the deployment's current build: workflows/loop.ts,
// workflows/iteration.ts), and a new build takes work only once it is made current (docs/operations.md, "Rolling upgrade of two hosts").
import type { NativeConnection, WorkerOptions, WorkflowBundleOption } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';

export const DEFAULT_DEPLOYMENT = 'collab-loop';

export interface WorkerDeployment {
  deploymentName: string;
  buildId: string;
}

/** `<package version>-<12 hex of sha256 of the workflow bundle>`: the bundle is the code a workflow task replays,
 *  so hosts installed from the same workflow code (in any directory) declare the same build, and a change to it a new
 *  one; activity-only changes keep the build (they need no routing: a retried activity runs the new code). */
export function derivedBuildId(bundle: WorkflowBundleOption): string {
  const { version } = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  const code = ('code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8')).split(PROJECT_ROOT).join('');
  return `${version}-${createHash('sha256').update(code).digest('hex').slice(0, 12)}`;
}

/** What every Worker of a versioned host declares. The default behaviour applies to a workflow type that names
 *  none (each of ours names its own). */
export const deploymentOptions = (d: WorkerDeployment): WorkerOptions['workerDeploymentOptions'] => ({
  version: d,
  useWorkerVersioning: true,
  defaultVersioningBehavior: 'AUTO_UPGRADE',
});

type WorkflowService = NativeConnection['workflowService'];

/**
 * A deployment no build was ever made current for routes no run to its versioned workers, so on a first rollout
 * `start` would wait silently. The first versioned worker therefore makes its own build current when the
 * deployment has never had a current build (`currentVersionChangedTime` unset); after that the current build
 * changes only deliberately (`temporal worker deployment set-current-version`, docs/operations.md, "Rolling upgrade of two
 * hosts"). Returns what it did, for the worker's start line. The deployment exists once this host's pollers have
 * reached the server, hence the retries.
 */
export async function currentOnFirstRollout(
  service: WorkflowService,
  namespace: string,
  d: WorkerDeployment,
  timeoutMs = 60_000,
): Promise<'made-current' | { current: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const described = await service.describeWorkerDeployment({ namespace, deploymentName: d.deploymentName });
      const routing = described.workerDeploymentInfo?.routingConfig;
      if (routing?.currentVersionChangedTime) return { current: routing.currentDeploymentVersion?.buildId || '(unversioned workers)' };
      await service.setWorkerDeploymentCurrentVersion({
        namespace,
        deploymentName: d.deploymentName,
        buildId: d.buildId,
        conflictToken: described.conflictToken,
        identity: `collab-loop worker ${d.buildId}`,
      });
      return 'made-current';
    } catch (err) {
      // NOT_FOUND: the deployment or this version is not registered yet; FAILED_PRECONDITION / ABORTED: another
      // host changed it first (the conflict token): read it again.
      const code = (err as { code?: number }).code;
      if (![5, 9, 10].includes(code ?? -1) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
