// A rolling upgrade of two hosts with Temporal Worker Versioning (docs/operations.md, "Rolling upgrade of two hosts"): both hosts
// run build A of deployment "collab-loop" (every queue, as two replicas); a 2-iteration loop starts; during
// iteration 0, host 2 restarts with build B (the iteration workflow changed behind patched(),
// tests/fixtures/workflow-fix) and B is made current. Iteration 0 (PINNED) finishes on A — host 1 — even after B is
// current; the loop (AUTO_UPGRADE) moves to B at its next workflow task and starts iteration 1 there; a new run goes
// to B. Every claim is read from the workflow histories: the build that completed each workflow task. Also: the
// docs/operations.md's `temporal workflow update-options` moves a running iteration from A to B; `collab-loop worker
// --deployment` prints the build ID derived from the workflow code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createRequire } from 'node:module';
import { trainingLoop } from '../../workflows/loop';
import { iterationStatusQuery, iterationWorkflowId, loopWorkflowId, pauseSignal, stopSignal } from '../../contracts/messages';
import { TASK_QUEUES } from '../../contracts/run';
import { createWorkers } from '../../workers/run-worker';
import { DEFAULT_DEPLOYMENT, derivedBuildId } from '../../workers/deployment';
import { cli, startCliWorker } from '../helpers/cli';
import { bundleWorkflowsAt, startDevServer, workflowBundle } from '../helpers/temporal';
import { tempStateDir, testConfig } from '../helpers/config';
import { waitUntil } from '../helpers/wait';
import { buildSequence, setCurrentVersion, taskBuildsByRun, temporalCommand } from '../helpers/task-builds';

const require = createRequire(import.meta.url);
let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer({ own: true }); // its second host's workers and the deployment it reads are in "default"
});
afterAll(async () => {
  await env?.teardown();
});

/** The upgrade's steps, printed together at the end (pass or fail). */
const steps: string[] = [];
let t0 = 0;
const log = (line: string) => steps.push(`[rolling upgrade +${((Date.now() - t0) / 1000).toFixed(0)}s] ${line}`);

/** One host's workers (every queue, own connection) as build `bundle` of the deployment, running until `stop()`. Not
 *  runWorkers: that stops every server and trainer of this process at shutdown, and host 1 shares the process. */
async function host(bundle: Awaited<ReturnType<typeof workflowBundle>>) {
  const connection = await NativeConnection.connect({ address: env.address });
  const workers: Worker[] = await createWorkers({
    connection,
    workflowBundle: bundle,
    shutdownGraceTime: '1s',
    deployment: { deploymentName: DEFAULT_DEPLOYMENT },
  });
  let stop!: () => void;
  const stopped = new Promise<void>((r) => {
    stop = r;
  });
  const running = Promise.all(workers.map((w) => w.runUntil(stopped))).then(() => connection.close());
  const buildId = workers[0].options.workerDeploymentOptions!.version.buildId;
  return {
    buildId,
    stop: () => {
      stop();
      return running;
    },
  };
}

/** A loop config of `iterations`; build A (the project's workflows) and build B (A with a patched() change). */
async function setup(iterations: number) {
  const config = testConfig(tempStateDir(), (c) => {
    c.iterations = iterations;
  });
  const [bundleA, bundleB] = await Promise.all([workflowBundle(), bundleWorkflowsAt(require.resolve('../fixtures/workflow-fix/index.ts'))]);
  return { config, bundleA, bundleB };
}

describe('Worker Versioning: a rolling upgrade of two hosts while a loop runs', () => {
  it('the running iteration stays on build A, the loop moves to B once B is current, new runs start on B', async () => {
    const { config, bundleA, bundleB } = await setup(2);
    const hosts: Awaited<ReturnType<typeof host>>[] = [];
    t0 = Date.now();
    try {
      const host1 = await host(bundleA);
      hosts.push(host1);
      let host2 = await host(bundleA);
      hosts.push(host2);
      const A = host1.buildId;
      log(`hosts 1 and 2 polling as build A (${A}) of deployment ${DEFAULT_DEPLOYMENT}`);
      await setCurrentVersion(env.address, DEFAULT_DEPLOYMENT, A);
      log('build A is current');

      const iterationTasks = async (run: string, k: number) => {
        const h = env.client.workflow.getHandle(iterationWorkflowId(run, k));
        return (await taskBuildsByRun(env.client, h.workflowId, (await h.describe()).runId)).flat();
      };
      const runName = 'rolling';
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      // Paused while the upgrade happens, so that iteration 0 cannot finish before B is current however slow the
      // machine is; it resumes after, with B current, and runs its stages from there on.
      await waitUntil(
        () => env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).query(iterationStatusQuery),
        120_000,
        'iteration 0',
      );
      await handle.signal(pauseSignal, true);
      const paused = await waitUntil(
        async () => {
          const s = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).query(iterationStatusQuery);
          return s.paused && s;
        },
        120_000,
        'iteration 0 paused',
      );
      log(`loop started; iteration 0 running on A, paused (stage ${paused.stage})`);

      await host2.stop();
      host2 = await host(bundleB);
      hosts[1] = host2;
      const B = host2.buildId;
      expect(B).not.toBe(A); // the build ID is derived from the workflow code
      log(`host 2 restarted as build B (${B}); A is still current`);
      await setCurrentVersion(env.address, DEFAULT_DEPLOYMENT, B);
      const iter0BeforeB = (await iterationTasks(runName, 0)).length;
      log(`build B is current (iteration 0 has completed ${iter0BeforeB} workflow tasks)`);
      await handle.signal(pauseSignal, false);
      log('loop resumed');

      const result = await handle.result();
      log(`loop completed: iterations ${result.iterations.map((i) => i.iteration).join(', ')}`);

      // A new run starts on B; stopped once its iteration 0 runs.
      const next = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId('after-upgrade'),
        args: [{ runName: 'after-upgrade', config }],
      });
      await waitUntil(() => env.client.workflow.getHandle(iterationWorkflowId('after-upgrade', 0)).describe(), 60_000, 'the new run');
      await next.signal(stopSignal, 'the test has seen where it runs');
      await next.result().catch(() => undefined);

      const names = { [A]: 'A', [B]: 'B' };
      const loopRuns = await taskBuildsByRun(env.client, loopWorkflowId(runName), handle.firstExecutionRunId);
      const [iter0, iter1, newLoop, newIter0] = await Promise.all([
        iterationTasks(runName, 0),
        iterationTasks(runName, 1),
        taskBuildsByRun(env.client, next.workflowId, next.firstExecutionRunId),
        iterationTasks('after-upgrade', 0),
      ]);
      log('workflow tasks completed, by build:');
      for (const [i, r] of loopRuns.entries()) log(`  loop run ${i + 1} (iteration ${i}): ${buildSequence(r, names)}`);
      log(`  iteration 0: ${buildSequence(iter0, names)} (${iter0.length - iter0BeforeB} after B became current)`);
      log(`  iteration 1: ${buildSequence(iter1, names)}`);
      log(`  new run: loop ${buildSequence(newLoop.flat(), names)}, iteration 0 ${buildSequence(newIter0, names)}`);

      // Iteration 0 ran entirely on A, though B became current while it ran (PINNED), so it never replayed on B.
      expect(new Set(iter0)).toEqual(new Set([A]));
      expect(iter0.length).toBeGreaterThan(iter0BeforeB);
      expect(result.iterations[0].metrics.shipped_fix).toBeUndefined();
      // The loop's run that spanned the upgrade: A, then B from its first task after B became current (AUTO_UPGRADE).
      expect(loopRuns).toHaveLength(2);
      const first = loopRuns[0];
      expect(first[0]).toBe(A);
      expect(first.at(-1)).toBe(B);
      expect(first.slice(first.indexOf(B))).not.toContain(A);
      expect(new Set(loopRuns[1])).toEqual(new Set([B]));
      // Iteration 1 started on B and took B's patched() path.
      expect(new Set(iter1)).toEqual(new Set([B]));
      expect(result.iterations[1].metrics.shipped_fix).toBe(1);
      // New runs go to the current build.
      expect(new Set(newLoop.flat())).toEqual(new Set([B]));
      expect(new Set(newIter0)).toEqual(new Set([B]));
      const described = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).describe();
      const versioning = described.raw.workflowExecutionInfo?.versioningInfo;
      expect(versioning?.deploymentVersion?.buildId).toBe(A);
      log(
        `describe iteration 0: behavior ${versioning?.behavior === 1 ? 'PINNED' : versioning?.behavior}, build ${versioning?.deploymentVersion?.buildId}`,
      );
    } finally {
      console.log(steps.join('\n'));
      await Promise.all(hosts.map((h) => h.stop()));
    }
  }, 400_000);

  it('`collab-loop worker --deployment` on a host without the workflows queue declares the build derived from the workflow code', async () => {
    const bad = await cli(['worker', '--build-id', ' '], { TEMPORAL_ADDRESS: env.address });
    expect(bad.exitCode).toBe(2);
    expect(bad.all.trim()).toBe('collab-loop: --build-id: empty');
    const gpu = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, ['--queues', 'gpu', '--deployment']);
    try {
      const A = derivedBuildId(await workflowBundle());
      expect(gpu.output()).toContain(`collab-loop worker polling gpu as build ${A} of deployment ${DEFAULT_DEPLOYMENT} on ${env.address}`);
    } finally {
      await gpu.stop();
    }
  });

  it('the first versioned worker of a new deployment makes its build current; a later build is told how to become current', async () => {
    const service = env.client.connection.workflowService;
    const current = async () =>
      (await service.describeWorkerDeployment({ namespace: 'default', deploymentName: 'first-rollout' })).workerDeploymentInfo
        ?.routingConfig?.currentDeploymentVersion?.buildId;
    const args = (build: string) => ['--queues', 'gpu', '--deployment', 'first-rollout', '--build-id', build];
    const one = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, args('one'));
    try {
      await waitUntil(
        async () => one.output().includes('build one is now the current build of deployment first-rollout (it had none)'),
        90_000,
        'the first rollout',
      );
      expect(await current()).toBe('one');
      const two = await startCliWorker({ TEMPORAL_ADDRESS: env.address }, args('two'));
      try {
        const hint =
          'new runs go to build one; to move them to this one: temporal worker deployment set-current-version --deployment-name first-rollout --build-id two';
        await waitUntil(async () => two.output().includes(hint), 90_000, 'the second build told where runs go');
        expect(await current()).toBe('one');
      } finally {
        await two.stop();
      }
    } finally {
      await one.stop();
    }
  });

  it('`temporal workflow update-options` moves a running iteration pinned to A onto B (it replays there on the old path)', async () => {
    const { config, bundleA, bundleB } = await setup(1);
    const hosts = [await host(bundleA)];
    try {
      hosts.push(await host(bundleB));
      const [A, B] = hosts.map((h) => h.buildId);
      await setCurrentVersion(env.address, DEFAULT_DEPLOYMENT, A);
      const runName = 'moved';
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      const iteration = env.client.workflow.getHandle(iterationWorkflowId(runName, 0));
      await waitUntil(() => iteration.query(iterationStatusQuery), 120_000, 'iteration 0');
      await handle.signal(pauseSignal, true);
      await waitUntil(async () => (await iteration.query(iterationStatusQuery)).paused, 60_000, 'iteration 0 paused');
      await setCurrentVersion(env.address, DEFAULT_DEPLOYMENT, B);
      const onA = (await taskBuildsByRun(env.client, iteration.workflowId, (await iteration.describe()).runId)).flat();
      // docs/operations.md's command.
      await temporalCommand(env.address, [
        ...['workflow', 'update-options', '--workflow-id', iteration.workflowId, '--versioning-override-behavior', 'pinned'],
        ...['--versioning-override-deployment-name', DEFAULT_DEPLOYMENT, '--versioning-override-build-id', B],
      ]);
      await handle.signal(pauseSignal, false);
      const result = await handle.result();

      const tasks = (await taskBuildsByRun(env.client, iteration.workflowId, (await iteration.describe()).runId)).flat();
      // A until the override (a task already started on A when it came still completes there), then only B.
      expect(new Set(onA)).toEqual(new Set([A]));
      const firstOnB = tasks.indexOf(B);
      expect(firstOnB).toBeGreaterThanOrEqual(onA.length);
      expect(new Set(tasks.slice(0, firstOnB))).toEqual(new Set([A]));
      expect(new Set(tasks.slice(firstOnB))).toEqual(new Set([B]));
      // Started before B: B's fix is behind patched(), so the moved iteration replays and goes on without it.
      expect(result.iterations[0].metrics.shipped_fix).toBeUndefined();
      const versioning = (await iteration.describe()).raw.workflowExecutionInfo?.versioningInfo;
      expect(versioning?.versioningOverride?.pinned?.version?.buildId ?? versioning?.deploymentVersion?.buildId).toBe(B);
    } finally {
      await Promise.all(hosts.map((h) => h.stop()));
    }
  }, 300_000);
});
