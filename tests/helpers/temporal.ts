// A real Temporal dev server for a test file (the `temporal` CLI installed by bin/setup.js), plus one workflow
// bundle per file so workers start fast.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { inject } from 'vitest';
import { temporalCliPath } from '../../cli/temporal-cli';
import { SEARCH_ATTRIBUTES } from '../../contracts/messages';
import { keptWorkflowBundle } from '../../workers/workflow-bundle';

const require = createRequire(import.meta.url);

/** The first namespace of this pool slot's shared server no other file has claimed (tests/shared-temporal.ts). */
function claimSharedNamespace(): { address: string; namespace: string } | undefined {
  const shared = inject('sharedTemporal');
  const slot = Number(process.env.VITEST_POOL_ID) - 1;
  const address = shared?.addresses[slot];
  if (!address) return undefined;
  for (const namespace of shared!.namespaces) {
    try {
      closeSync(openSync(path.join(shared!.claims, `${slot}-${namespace}`), 'wx'));
      return { address, namespace };
    } catch {}
  }
  return undefined;
}

/** A namespace of its own on the dev server of this pool slot when the tier shares them (tests/shared-temporal.ts);
 *  otherwise, or with `own` (the test reads the "default" namespace, or needs the server's ports or process to
 *  itself), a server of its own. On the shared server TEMPORAL_NAMESPACE names the file's namespace for this process
 *  and the CLI processes it starts, as a user's shell would; workers take `env.namespace` (tests/helpers/workers.ts).
 *  `namespaces`: created at launch besides "default" on a server of its own (its client stays in "default"). */
export async function startDevServer(o: { namespaces?: string[]; own?: boolean } = {}): Promise<TestWorkflowEnvironment> {
  const shared = o.own || o.namespaces ? undefined : claimSharedNamespace();
  if (shared) {
    process.env.TEMPORAL_NAMESPACE = shared.namespace;
    return TestWorkflowEnvironment.createFromExistingServer(shared);
  }
  return launchDevServer(o.namespaces ?? []);
}

/** A dev server of our own with the search attributes registered in "default" and each of `namespaces`. */
export const launchDevServer = (namespaces: string[]): Promise<TestWorkflowEnvironment> =>
  TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCliPath() },
      searchAttributes: [...SEARCH_ATTRIBUTES],
      extraArgs: namespaces.flatMap((ns) => ['--namespace', ns]),
    },
  });

/** The namespace the env's client works in. */
export const namespaceOf = (env: TestWorkflowEnvironment): string => env.namespace ?? 'default';

/** The workflows of one entry file, bundled quietly (a test that swaps in another build bundles its own), kept as a
 *  worker keeps it (workers/workflow-bundle.ts): the suite's files and workers bundle each set of sources once. */
export const bundleWorkflowsAt = (workflowsPath: string) =>
  keptWorkflowBundle(workflowsPath, { info() {}, warn() {}, error: console.error, debug() {}, trace() {}, log() {} } as never);

let bundle: Promise<{ code: string }> | undefined;
export function workflowBundle(): Promise<{ code: string }> {
  if (!bundle) {
    bundle = bundleWorkflowsAt(require.resolve('../../workflows/index.ts'));
    bundle.catch(() => (bundle = undefined)); // a failed bundle is not kept for the next test file of this process
  }
  return bundle;
}
