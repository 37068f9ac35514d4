// Experiment trackers: a loop with a `tracking:` section logs each iteration's metrics, the parameters, the lineage,
// the trainer's loss curves and the report to a real MLflow server (started here from PyPI's mlflow) and to W&B
// offline run files (read back from W&B's own transaction log); re-sending is a no-op; a tracker that refuses never
// stops the run; without the section nothing is sent anywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, writeFileSync } from 'node:fs';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import path from 'node:path';
import { loopWorkflowId } from '../../../../contracts/messages';
import { trackIteration } from '../../../../activities/stages/track-iteration';
import { LOGGED_TAG, RUN_TAG } from '../../../../activities/tracking/mlflow';
import { parseConfigText } from '../../../../configs/load';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { startDevServer } from '../../../helpers/temporal';
import { runLoop } from '../../../helpers/run-loop';
import { tempStateDir, testConfig } from '../../../helpers/config';
import { startMlflowServer, type MlflowServer } from '../../../helpers/mlflow-server';
import { cli } from '../../../helpers/cli';
import { wandbRuns } from '../../../helpers/wandb-runs';

let env: TestWorkflowEnvironment;
let mlflow: MlflowServer;
beforeAll(async () => {
  [env, mlflow] = await Promise.all([startDevServer(), startMlflowServer()]);
});
afterAll(async () => {
  await mlflow?.close();
  await env?.teardown();
});

interface MlflowRun {
  info: { run_id: string; status: string; artifact_uri: string; experiment_id: string };
  data: { params?: Array<{ key: string; value: string }>; tags?: Array<{ key: string; value: string }> };
}

async function allRuns(): Promise<MlflowRun[]> {
  const { experiments = [] } = await mlflow.post<{ experiments?: Array<{ experiment_id: string }> }>('/api/2.0/mlflow/experiments/search', {
    max_results: 1000,
  });
  if (!experiments.length) return [];
  return (
    (
      await mlflow.post<{ runs?: MlflowRun[] }>('/api/2.0/mlflow/runs/search', {
        experiment_ids: experiments.map((e) => e.experiment_id),
        max_results: 1000,
      })
    ).runs ?? []
  );
}

async function history(runId: string, key: string): Promise<Array<{ step: number; value: number }>> {
  const h = await mlflow.get<{ metrics?: Array<{ step: number; value: number }> }>(
    `/api/2.0/mlflow/metrics/get-history?run_id=${runId}&metric_key=${encodeURIComponent(key)}`,
  );
  return (h.metrics ?? []).map(({ step, value }) => ({ step, value })).sort((a, b) => a.step - b.step);
}

describe('tracking: MLflow and Weights & Biases', () => {
  it('logs metrics per iteration, parameters, lineage, loss curves and the report; re-sending logs nothing twice', async () => {
    const stateDir = tempStateDir();
    const runName = 'tracked';
    const config = testConfig(stateDir, (c) => {
      // Bounds well past a loaded machine's slowest answer: this test is about what is logged (tracker-timeout.test.ts
      // is about the bound). Under four test workers MLflow once took over the default 10 s.
      c.tracking = {
        mlflow: { trackingUri: mlflow.url, experiment: 'loop-tests', timeoutSeconds: 120 },
        wandb: { project: 'collab-loop-tests', timeoutSeconds: 120 },
      };
    });
    const result = await runLoop(env, runName, config);
    expect(result.iterations).toHaveLength(2);
    expect(result.trackingError).toBeUndefined();
    const [it0, it1] = result.iterations;

    // MLflow: one run, found by its tag, finished, with the config as parameters (never the tracking section).
    const runs = (await allRuns()).filter((r) => r.data.tags?.some((t) => t.key === RUN_TAG && t.value === runName));
    expect(runs).toHaveLength(1);
    const run = runs[0];
    expect(run.info.status).toBe('FINISHED');
    // The loop's result says where each tracker's output is: the MLflow run's page, W&B's offline run directory.
    const offlineRuns = path.join(stateDir, 'wandb', 'wandb');
    expect(result.tracking).toEqual([
      { tracker: 'mlflow', state: 'written', where: `${mlflow.url}/#/experiments/${run.info.experiment_id}/runs/${run.info.run_id}` },
      {
        tracker: 'wandb',
        state: 'written',
        where: expect.stringMatching(new RegExp(`^${offlineRuns}/offline-run-\\d+_\\d+-${runName}$`)),
        hint: `upload with: wandb sync ${offlineRuns}/offline-run-*`,
      },
    ]);
    const params = Object.fromEntries((run.data.params ?? []).map((p) => [p.key, p.value]));
    expect(params).toMatchObject({ 'recipe.name': 'coral', 'recipe.maxTurns': '4', seed: '3', 'trainer.kind': 'command', iterations: '2' });
    expect(Object.keys(params).filter((k) => k.startsWith('tracking'))).toEqual([]);
    // Metrics at step = iteration, once each, equal to what the loop measured.
    for (const key of ['agreement_correctness', 'tokens', 'train_final_loss', 'generate_seconds']) {
      expect(await history(run.info.run_id, key), key).toEqual([
        { step: 0, value: key === 'tokens' ? it0.tokens : expect.any(Number) },
        { step: 1, value: key === 'tokens' ? it1.tokens : expect.any(Number) },
      ]);
    }
    expect((await history(run.info.run_id, 'agreement_correctness')).map((h) => h.value)).toEqual([
      it0.metrics.agreement_correctness,
      it1.metrics.agreement_correctness,
    ]);
    // The trainer's loss per step of each iteration's run, from its progress lines.
    const curve0 = await history(run.info.run_id, 'train_loss/iter_0');
    expect(curve0.length).toBeGreaterThan(1);
    expect(curve0.at(-1)!.value).toBeCloseTo(it0.train!.finalLoss!, 6);
    // Lineage: which data trained which checkpoint, and that the next iteration served it.
    const tags = Object.fromEntries((run.data.tags ?? []).map((t) => [t.key, t.value]));
    expect(tags['collab-loop.iter-0.next_checkpoint']).toBe(it0.nextCheckpoint);
    expect(tags['collab-loop.iter-1.checkpoint']).toBe(it0.nextCheckpoint);
    expect(tags['collab-loop.iter-0.dpo_data']).toBe(it0.datasets!.dpo!.uri);
    expect(tags[LOGGED_TAG]).toBe('1');
    // The report, through MLflow's artifact proxy.
    const artifactDir = run.info.artifact_uri.replace(/^mlflow-artifacts:\/?/, '');
    const report = await fetch(`${mlflow.url}/api/2.0/mlflow-artifacts/artifacts/${artifactDir}/report.html`);
    expect(report.status).toBe(200);
    const html = await report.text();
    expect(html).toContain(runName);
    expect(html).toContain('<svg');

    // W&B offline: iteration 0 was logged after iteration 0, iteration 1 at the end, each step exactly once.
    const wandb = await wandbRuns(path.join(stateDir, 'wandb'));
    expect(wandb.length).toBe(2);
    for (const w of wandb) expect(w.run).toMatchObject({ id: runName, name: runName, project: 'collab-loop-tests', group: 'coral' });
    const rows = wandb.flatMap((w) => w.history).sort((a, b) => (a._step as number) - (b._step as number));
    expect(rows.map((r) => r._step)).toEqual([0, 1]);
    expect(rows.map((r) => r.agreement_correctness)).toEqual([it0.metrics.agreement_correctness, it1.metrics.agreement_correctness]);
    expect(rows[1]['report/_type']).toBe('html-file');
    const last = wandb.find((w) => w.history.some((r) => r._step === 1))!;
    expect(last.files.some((f) => f.startsWith('media/html/report_'))).toBe(true);
    expect(last.config).toMatchObject({ 'recipe.name': 'coral', seed: '3' });
    expect(last.summary['lineage/iter_1/checkpoint']).toBe(it0.nextCheckpoint);

    // Re-sending what the final call sent (a retried activity): nothing new anywhere.
    await trackIteration({ runName, config, iterations: result.iterations, final: true });
    expect(await history(run.info.run_id, 'agreement_correctness')).toHaveLength(2);
    expect(await history(run.info.run_id, 'train_loss/iter_0')).toHaveLength(curve0.length);
    expect(await wandbRuns(path.join(stateDir, 'wandb'))).toHaveLength(2);

    // RECORD_HISTORIES=<tag>: the loop's last run (tracking behind its patch, then the final track) for tests/workflows/replay.test.ts.
    if (process.env.RECORD_HISTORIES) {
      const loopHistory = await env.client.workflow.getHandle(loopWorkflowId(runName)).fetchHistory();
      writeFileSync(
        path.join(PROJECT_ROOT, 'tests', 'histories', `loop-coral-${process.env.RECORD_HISTORIES}.json`),
        `{"workflowId": ${JSON.stringify(loopWorkflowId(runName))}, "history": ${historyToJSON(loopHistory)}}`,
      );
    }
  });

  it('a tracker that refuses does not stop the run: the reason shows in status', async () => {
    const stateDir = tempStateDir();
    const runName = 'tracker-refuses';
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.tracking = { mlflow: { trackingUri: mlflow.url, tokenEnv: 'COLLAB_LOOP_TEST_UNSET_TOKEN' } };
    });
    const result = await runLoop(env, runName, config);
    expect(result.iterations).toHaveLength(1);
    expect(result.trackingError).toBe(
      'tracking.mlflow.tokenEnv: environment variable COLLAB_LOOP_TEST_UNSET_TOKEN is not set on this worker',
    );
    const status = await cli(['status', runName], { TEMPORAL_ADDRESS: env.address });
    expect(status.stdout).toContain(
      'tracking failed (the run went on without it): tracking.mlflow.tokenEnv: environment variable COLLAB_LOOP_TEST_UNSET_TOKEN',
    );
  });

  it('without a tracking section nothing is sent', async () => {
    const stateDir = tempStateDir();
    const runName = 'untracked';
    const before = (await allRuns()).length;
    const result = await runLoop(
      env,
      runName,
      testConfig(stateDir, (c) => {
        c.iterations = 1;
      }),
    );
    expect(result.iterations).toHaveLength(1);
    expect((await allRuns()).length).toBe(before);
    expect(existsSync(path.join(stateDir, 'wandb'))).toBe(false);
    // Not even scheduled: the loop's history has no tracking activity.
    const events = (await env.client.workflow.getHandle(loopWorkflowId(runName)).fetchHistory()).events ?? [];
    expect(events.some((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'trackIteration')).toBe(false);
  });

  it('a bad tracking section is one clear error naming the field', () => {
    const base = 'baseCheckpoint: x\nrecipe: {name: coral, dataset: math, evalTasks: t.jsonl}\nserver: {kind: simulator}\n';
    expect(() => parseConfigText(`${base}tracking: {}\n`, 'x.yaml')).toThrow(/x\.yaml: tracking: names no tracker/);
    expect(() => parseConfigText(`${base}tracking: {mlflow: {trackingUri: localhost-5000}}\n`, 'x.yaml')).toThrow(
      /tracking\.mlflow\.trackingUri: must be a URL/,
    );
    expect(() => parseConfigText(`${base}tracking: {wandb: {project: p, mode: cloud}}\n`, 'x.yaml')).toThrow(/tracking\.wandb\.mode/);
  });
});
