// A tracker that never answers costs the loop its timeout and nothing more: `collab-loop demo` with a stand-in
// MLflow server that accepts requests and never answers them, beside a real W&B offline tracker. W&B is written while
// MLflow still waits (the trackers write side by side), MLflow's request is aborted at its `timeoutSeconds` and
// recorded as timed out in the activity's result (one attempt, not retried), and `demo` and `status` say where
// W&B's offline files went and that MLflow was not written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { defaultPayloadConverter } from '@temporalio/common';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loopWorkflowId } from '../../../../contracts/messages';
import type { TrackerOutcome } from '../../../../contracts/tracking';
import type { LoopResult } from '../../../../workflows/loop';
import { startDevServer } from '../../../helpers/temporal';
import { json, startServer, type TestServer } from '../../../helpers/recording-server';
import { tempStateDir, testConfig } from '../../../helpers/config';
import { trackIteration } from '../../../../activities/stages/track-iteration';
import { cli } from '../../../helpers/cli';
import { wandbRuns } from '../../../helpers/wandb-runs';

const runName = 'tracked-dead-mlflow';
const stateDir = tempStateDir();
/** W&B's own logged-through mark (activities/tracking/wandb.ts): written once its offline run is complete. */
const wandbMark = path.join(stateDir, 'wandb', 'collab-loop', `${runName}.json`);

let env: TestWorkflowEnvironment;
let mlflow: TestServer;
/** For each request the stand-in got, as the client gave up on it: whether W&B was already written, and whether
 *  the loop still ran (aborted by the worker at the timeout, not closed as the demo's process ended). */
const closed: Array<Promise<{ url: string; wandbWritten: boolean; loop: string }>> = [];
const loopState = () =>
  env.client.workflow
    .getHandle(loopWorkflowId(runName))
    .describe()
    .then((d) => d.status.name);

beforeAll(async () => {
  [env, mlflow] = await Promise.all([
    startDevServer(),
    // Accepts every request and never answers: a hung MLflow (or a proxy in front of a dead one).
    startServer((req, res) =>
      res.on('close', () => {
        const wandbWritten = existsSync(wandbMark);
        closed.push(loopState().then((loop) => ({ url: req.url, wandbWritten, loop })));
      }),
    ),
  ]);
});
afterAll(async () => {
  await mlflow?.close();
  await env?.teardown();
});

describe('trackers write side by side, each within its timeout', () => {
  it('a hung MLflow is aborted at its timeout while W&B is written; demo and status say where the output went', async () => {
    const r = await cli(
      [
        'demo',
        'configs/coral.dry-run.yaml',
        '--name',
        runName,
        '--set',
        `stateDir=${stateDir}`,
        '--set',
        'iterations=1',
        '--set',
        'tracking.wandb.project=collab-loop-tests',
        '--set',
        `tracking.mlflow.trackingUri=${mlflow.url}`,
        '--set',
        'tracking.mlflow.timeoutSeconds=20',
      ],
      { TEMPORAL_ADDRESS: env.address },
    );
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/^finished in /m);

    // The loop's one tracking call: a single attempt (nothing retried it), MLflow timed out, W&B written.
    const handle = env.client.workflow.getHandle(loopWorkflowId(runName));
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'trackIteration');
    expect(scheduled).toHaveLength(1);
    const started = events.filter(
      (e) => e.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled[0].eventId?.toString(),
    );
    expect(started.map((e) => e.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
    const completed = events.find(
      (e) => e.activityTaskCompletedEventAttributes?.scheduledEventId?.toString() === scheduled[0].eventId?.toString(),
    );
    const outcomes = defaultPayloadConverter.fromPayload<TrackerOutcome[]>(
      completed!.activityTaskCompletedEventAttributes!.result!.payloads![0] as never,
    );
    const offlineRuns = path.join(stateDir, 'wandb', 'wandb');
    const mlflowError = `tracking.mlflow: no answer within 20 s (tracking.mlflow.timeoutSeconds)`;
    expect(outcomes).toEqual([
      { tracker: 'mlflow', state: 'timed out', error: mlflowError },
      { tracker: 'wandb', state: 'written', where: expect.stringContaining(`${offlineRuns}/offline-run-`), hint: expect.any(String) },
    ]);
    const result = (await handle.result()) as LoopResult;
    expect(result.tracking).toEqual(outcomes);
    expect(result.trackingError).toBe(mlflowError);

    // MLflow's write stopped at its timeout: its one request was closed by the worker while the loop still ran, not
    // left hanging, and W&B had already finished by then — it did not wait for MLflow.
    expect(mlflow.received.map((q) => q.url)).toEqual([expect.stringMatching(/^\/api\/2\.0\/mlflow\/experiments\/get-by-name/)]);
    expect(await Promise.all(closed)).toEqual([{ url: mlflow.received[0].url, wandbWritten: true, loop: 'RUNNING' }]);

    // W&B's offline run holds the iteration, where demo says it is.
    const wandbWhere = outcomes[1].where!;
    const [run] = (await wandbRuns(path.join(stateDir, 'wandb'))).filter((w) => w.dir === wandbWhere);
    expect(run.history.map((h) => [h._step, h.agreement_correctness])).toEqual([[0, result.iterations[0].metrics.agreement_correctness]]);
    expect(r.all).toContain(
      `tracker output:\n  MLflow: not written (timed out): ${mlflowError}\n  W&B: ${wandbWhere} (upload with: wandb sync ${offlineRuns}/offline-run-*)`,
    );

    const status = await cli(['status', runName], { TEMPORAL_ADDRESS: env.address });
    expect(status.stdout).toContain(`tracking failed (the run went on without it): ${mlflowError}`);
    expect(status.stdout).toContain(`tracked in W&B: ${wandbWhere} (upload with: wandb sync ${offlineRuns}/offline-run-*)`);
  });

  it('a tracker that answers 503 is tried again within its timeout, then reported with its last answer', async () => {
    const busy = await startServer((_req, res) => json(res, 503, { error_code: 'TEMPORARILY_UNAVAILABLE' }));
    try {
      const config = testConfig(tempStateDir(), (c) => {
        c.tracking = { mlflow: { trackingUri: busy.url, timeoutSeconds: 4, uploadReport: false } };
      });
      const outcomes = await trackIteration({ runName: 'busy-mlflow', config, iterations: [], final: false });
      expect(outcomes).toEqual([
        {
          tracker: 'mlflow',
          state: 'timed out',
          error: expect.stringMatching(
            /^tracking\.mlflow: no answer within 4 s \(tracking\.mlflow\.timeoutSeconds\); before that: MLflow GET \/api\/2\.0\/mlflow\/experiments\/get-by-name answered HTTP 503/,
          ),
        },
      ]);
      expect(busy.received.length).toBeGreaterThan(1);
    } finally {
      await busy.close();
    }
  });
});
