// Shipping a fix into a running loop: a loop starts on one build of the workflow code; its workers stop in the middle
// of iteration 0; workers with a new build (the iteration workflow changed behind patched(), as docs/operations.md says a fix
// must be) take over, and the run completes: the iteration in flight at the upgrade replays and finishes on the old
// path, the next one takes the new path, and no workflow task ever fails on nondeterminism.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createRequire } from 'node:module';
import { trainingLoop } from '../../../workflows/loop';
import { iterationStatusQuery, iterationWorkflowId, loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { createWorkers, runWorkers } from '../../../workers/run-worker';
import { bundleWorkflowsAt, namespaceOf, startDevServer, workflowBundle } from '../../helpers/temporal';
import { tempStateDir, testConfig } from '../../helpers/config';
import { waitUntil } from '../../helpers/wait';

const require = createRequire(import.meta.url);
const never = new Promise<never>(() => undefined);
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('new workflow code during a long run', () => {
  it('a loop started on one build completes on a build with a patched() change', async () => {
    const config = testConfig(tempStateDir(), (c) => {
      c.iterations = 2;
    });
    const runName = 'upgrade';
    const handle = await env.client.workflow.start(trainingLoop, {
      taskQueue: TASK_QUEUES.workflows,
      workflowId: loopWorkflowId(runName),
      args: [{ runName, config }],
    });

    // Build 1 runs until iteration 0 is past deployment, then its workers stop (as for a redeploy, with
    // `worker --keep-servers`).
    const oldWorkers = await createWorkers({
      connection: env.nativeConnection,
      namespace: namespaceOf(env),
      workflowBundle: await workflowBundle(),
      shutdownGraceTime: '1s',
    });
    await runWorkers(
      oldWorkers,
      waitUntil(
        async () => {
          const s = await env.client.workflow
            .getHandle(iterationWorkflowId(runName, 0))
            .query(iterationStatusQuery)
            .catch(() => undefined);
          return s && s.stage !== 'deploy' ? s : undefined;
        },
        60_000,
        'iteration 0 past deploy',
      ),
      // As docs/operations.md's "Shipping a fix" says for gpu workers: iteration 0's server stays up for the new build.
      { keepServers: true },
    );

    // Build 2: the shipped fix.
    const fixedBundle = await bundleWorkflowsAt(require.resolve('../../fixtures/workflow-fix/index.ts'));
    const newWorkers = await createWorkers({
      connection: env.nativeConnection,
      namespace: namespaceOf(env),
      workflowBundle: fixedBundle,
      shutdownGraceTime: '1s',
    });
    const ids = [loopWorkflowId(runName), iterationWorkflowId(runName, 0), iterationWorkflowId(runName, 1)];
    const failedTasks = async (id: string) => {
      const history = await env.client.workflow
        .getHandle(id)
        .fetchHistory()
        .catch(() => undefined);
      return (history?.events ?? []).filter((e) => e.workflowTaskFailedEventAttributes);
    };
    // A nondeterministic build would leave the run stuck retrying its workflow task: fail at once, saying so.
    let done = false;
    const watchdog = (async () => {
      while (!done) {
        for (const id of ids)
          if ((await failedTasks(id)).length) throw new Error(`${id}: a workflow task failed on the new build (nondeterminism?)`);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const result = (await runWorkers(
      newWorkers,
      Promise.race([handle.result(), watchdog.then(() => never)]).finally(() => {
        done = true;
      }),
    ))!;

    expect(result.iterations.map((i) => i.iteration)).toEqual([0, 1]);
    expect(result.iterations[0].metrics.shipped_fix).toBeUndefined(); // in flight at the upgrade: the old path
    expect(result.iterations[1].metrics.shipped_fix).toBe(1); // started after it: the new path
    expect(result.iterations[1].checkpoint).toBe(result.iterations[0].nextCheckpoint);

    for (const id of ids) expect(await failedTasks(id), `${id}: workflow task failures (nondeterminism)`).toEqual([]);
  });
});
