// A real Temporal dev server per test file (the `temporal` CLI installed by bin/setup.js), plus one workflow
// bundle per file so workers start fast.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { temporalCliPath } from '../../cli/temporal-cli';
import { SEARCH_ATTRIBUTES } from '../../contracts/messages';

const require = createRequire(import.meta.url);

/** `namespaces`: created at launch besides "default" (the env's own client stays in "default"). */
export async function startDevServer(o: { namespaces?: string[] } = {}): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCliPath() },
      searchAttributes: [...SEARCH_ATTRIBUTES],
      extraArgs: (o.namespaces ?? []).flatMap((ns) => ['--namespace', ns]),
    },
  });
}

/** The workflows of one entry file, bundled quietly (a test that swaps in another build bundles its own). */
export const bundleWorkflowsAt = (workflowsPath: string) =>
  bundleWorkflowCode({
    workflowsPath,
    logger: { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never,
  });

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowsAt(require.resolve('../../workflows/index.ts'));
  return bundle;
}
