// The whole loop on a real Temporal dev server: simulator deploy (a real HTTP server subprocess), CoRal
// generation through the real LLM client, evaluation, DPO data, the stand-in trainer subprocess, and the next
// iteration serving the checkpoint it produced. Also records the histories that the replay test guards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../../workflows/loop';
import { iterationWorkflowId, loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES } from '../../contracts/run';
import { startDevServer, workflowBundle } from '../helpers/temporal';
import { withWorkers } from '../helpers/workers';
import { recordHistoriesIfAsked } from '../helpers/run-loop';
import { tempStateDir, testConfig } from '../helpers/config';
import { cli } from '../helpers/cli';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { readJsonl, readJson } from '../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('training loop (CoRal, simulator deploy, stand-in trainer)', () => {
  it('runs two iterations end to end and the second serves the checkpoint the first trained', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir);
    const runName = 'e2e';
    const result = await withWorkers(env, () =>
      env.client.workflow.execute(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      }),
    );

    expect(result.stopped).toBe(false);
    expect(result.iterations.map((i) => i.iteration)).toEqual([0, 1]);
    const [it0, it1] = result.iterations;
    // Metrics are real numbers from real conversations.
    for (const it of result.iterations) {
      expect(it.metrics.conversations).toBe(8);
      expect(it.metrics.agreement_correctness).toBeGreaterThanOrEqual(0);
      expect(it.metrics.agreement_correctness).toBeLessThanOrEqual(1);
      expect(it.tokens).toBeGreaterThan(0);
    }
    // Lineage: iteration 1 deployed what iteration 0 trained, from the dataset iteration 0 built.
    expect(it0.nextCheckpoint).toBe(path.join(stateDir, 'checkpoints', runName, 'iter-1'));
    expect(it1.checkpoint).toBe(it0.nextCheckpoint);
    expect(result.finalCheckpoint).toBe(it1.nextCheckpoint);
    const lineage = JSON.parse(readFileSync(path.join(it0.nextCheckpoint!, 'collab-loop-checkpoint.json'), 'utf8'));
    expect(lineage.dataset.sha256).toBe(it0.datasets!.dpo!.sha256);
    expect(lineage.baseCheckpoint).toBe(config.baseCheckpoint);
    expect(lineage.finalLoss).toBeTypeOf('number');
    const deployManifest = readJson<{ inputs: { checkpoint: string } }>(it1.manifests.deploy);
    expect(deployManifest.inputs.checkpoint).toBe(it0.nextCheckpoint);
    // DPO rows are in the fairseq2 preference format and share a prefix.
    const pairs = readJsonl<Record<string, string>>(it0.datasets!.dpo!);
    expect(pairs.length).toBeGreaterThan(0);
    expect(Object.keys(pairs[0])).toEqual(expect.arrayContaining(['src', 'tgt_chosen', 'tgt_rejected']));
    // No model server is left running.
    const serversDir = path.join(stateDir, 'servers', runName);
    expect(existsSync(serversDir) ? readdirSync(serversDir) : []).toEqual([]);
    const deployed = readJson<{ params: { port?: number } }>(it0.manifests.deploy);
    expect(deployed.params.port).toBeTypeOf('number');
    await expect(fetch(`http://127.0.0.1:${deployed.params.port}/health`)).rejects.toThrow();

    // The iteration's history replays; recorded, the replay test (tests/workflows/replay.test.ts) guards determinism with it.
    const iterationHistory = await env.client.workflow.getHandle(iterationWorkflowId(runName, 0)).fetchHistory();
    const bundle = await workflowBundle();
    await Worker.runReplayHistory({ workflowBundle: bundle }, iterationHistory, iterationWorkflowId(runName, 0));
    // RECORD_HISTORIES=<tag> adds `*-coral-<tag>.json` beside the older recordings, which stay: each one stands
    // for loops that may still be running on the code that recorded it.
    await recordHistoriesIfAsked(env, runName, 'coral');
    // History stays small: the data lives in the artifact store.
    expect(iterationHistory.events!.length).toBeLessThan(200);

    // The user's view of the finished run through the CLI: list, status, report (table + HTML with a plot).
    const cliEnv = { TEMPORAL_ADDRESS: env.address };
    // One numbering everywhere: iterations 0 and 1, as in the workflow ids, the checkpoints and the report.
    const list = await cli(['list'], cliEnv);
    expect(list.exitCode, list.all).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${runName}\tcoral\tcompleted\titerations 0–1 done\t`, 'm'));
    const status = await cli(['status', runName], cliEnv);
    expect(status.stdout).toContain(`run ${runName} (coral) · completed · iterations 0–1 done`);
    expect(status.stdout).toMatch(/^metric\s+iter 0\s+iter 1$/m);
    const row = (out: string, metric: string) =>
      out
        .split('\n')
        .find((l) => l.startsWith(`${metric} `))
        ?.trim()
        .split(/\s+/)
        .slice(1);
    expect(row(status.stdout, 'agreement_correctness')).toEqual([it0, it1].map((i) => i.metrics.agreement_correctness.toFixed(4)));
    // Without --html the report prints and writes nothing (the CLI runs in the project root here).
    const plain = await cli(['report', runName], cliEnv);
    expect(plain.exitCode, plain.all).toBe(0);
    expect(plain.stdout).not.toContain('HTML report');
    expect(existsSync(path.join(PROJECT_ROOT, `${runName}-report.html`))).toBe(false);
    const html = path.join(stateDir, 'report.html');
    const report = await cli(['report', runName, '--html', html], cliEnv);
    expect(report.exitCode, report.all).toBe(0);
    expect(row(report.stdout, 'conversations')).toEqual(['8', '8']);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/<svg[^>]*>.*<polyline/s);
    expect(page).toContain(it0.datasets!.dpo!.sha256.slice(0, 12)); // the lineage chain
    expect(page).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/); // self-contained
    const missing = await cli(['status', 'no-such-run'], cliEnv);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/^collab-loop: .*no-such-run/);
  });
});
