// A workflow type's Worker Versioning behaviour (https://docs.temporal.io/worker-versioning), declared only on a
// versioned worker (`collab-loop worker --deployment`, workers/deployment.ts): the server refuses a workflow task
// completion that names a behaviour from an unversioned worker ("versioning behavior cannot be specified without
// deployment options"), and an unversioned worker's task carries a build ID but no deployment name. Read once, at
// the run's first activation: a run an unversioned worker started gets the versioned worker's default
// (AUTO_UPGRADE, workers/deployment.ts) if versioned workers take it over.
import type { VersioningBehavior, WorkflowDefinitionOptionsOrGetter } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

export const versioningBehavior =
  (behavior: VersioningBehavior): WorkflowDefinitionOptionsOrGetter =>
  () =>
    workflowInfo().currentDeploymentVersion?.deploymentName ? { versioningBehavior: behavior } : {};
