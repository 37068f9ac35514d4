// Temporal Worker Versioning (https://docs.temporal.io/worker-deployments): a versioned worker declares a deployment
// name and a build ID; the server sends a run's workflow tasks to the build its versioning behaviour names (the
// iteration stays on the build it started on; the loop follows the deployment's current build: workflows/loop.ts,
// workflows/iteration.ts), and a new build takes work only once it is made current (README "Rolling upgrade").
import type { WorkerOptions, WorkflowBundleOption } from '@temporalio/worker';
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
