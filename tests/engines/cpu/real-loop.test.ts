// The real CPU loop: a tiny random Llama served by `transformers serve`, trained by TRL (DPO) on the pairs the
// iteration built, and the next iteration serving — and probing — the checkpoint it produced. The conversations'
// agents are SIMULATED (a random tiny model cannot converse); serving and training are real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { trainingLoop } from '../../../workflows/loop';
import { loopWorkflowId } from '../../../contracts/messages';
import { TASK_QUEUES } from '../../../contracts/run';
import { sha256Hex } from '../../../activities/storage/content-hash';
import { startDevServer } from '../../helpers/temporal';
import { withWorkers } from '../../helpers/workers';
import { tempStateDir, testConfig } from '../../helpers/config';
import { realCpuLoop, tinyBaseCheckpoint } from '../../helpers/tiny-model';
import { cli } from '../../helpers/cli';
import { readJsonl } from '../../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const sha = (f: string) => sha256Hex(readFileSync(f));

describe('real CPU loop (transformers serve + TRL on a tiny model)', () => {
  it('trains a real checkpoint and serves it in the next iteration', async () => {
    const stateDir = tempStateDir();
    const base = await tinyBaseCheckpoint(stateDir);
    const config = testConfig(stateDir, realCpuLoop(base));
    const runName = 'cpu-loop';
    const result = await withWorkers(env, () =>
      env.client.workflow.execute(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      }),
    );
    const [it0, it1] = result.iterations;
    expect(result.iterations).toHaveLength(2);

    // Iteration 0 trained real weights with TRL from the DPO pairs it built.
    const ckpt = it0.nextCheckpoint!;
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json']) expect(existsSync(path.join(ckpt, f)), f).toBe(true);
    expect(sha(path.join(ckpt, 'model.safetensors'))).not.toBe(sha(path.join(base, 'model.safetensors')));
    const lineage = JSON.parse(readFileSync(path.join(ckpt, 'collab-loop-checkpoint.json'), 'utf8'));
    expect(lineage.dataset.sha256).toBe(it0.datasets!.dpo!.sha256);
    expect(lineage.weights).toEqual({ 'model.safetensors': sha(path.join(ckpt, 'model.safetensors')) }); // what it1 serves
    expect(lineage.trainer).toBe('trl');
    expect(lineage.version).toMatch(/trl 1\.13\.0/);
    expect(lineage.argv.flat().join(' ')).toContain('trl_train.py');
    expect(lineage.steps).toBe(4);
    expect(lineage.finalLoss).toBeTypeOf('number');
    const rows = readJsonl<Record<string, unknown>>(it0.datasets!.dpo!);
    expect(Object.keys(rows[0]).sort()).toEqual(['chosen', 'prompt', 'rejected']); // TRL conversational preference rows

    // Each iteration's server really served its own checkpoint: the probe asked `transformers serve` pinned to it.
    expect(it1.checkpoint).toBe(ckpt);
    expect(it0.probe!.model).toBe(base);
    expect(it1.probe!.model).toBe(ckpt);
    for (const it of [it0, it1]) expect(it.probe!.completionTokens).toBeGreaterThan(0);
    expect(it1.probe!.answersSha256).not.toBe(it0.probe!.answersSha256); // different weights, different greedy answers

    // Metrics come from the (simulated) conversations; the simulated skill rose with the data trained on.
    for (const it of [it0, it1]) expect(it.metrics.conversations).toBe(8);
    const policy = JSON.parse(readFileSync(path.join(ckpt, 'simulated-policy.json'), 'utf8'));
    expect(policy.skill).toBeGreaterThan(0.45);

    // No server is left running, and the report shows the lineage chain.
    expect(readdirSync(path.join(stateDir, 'servers', runName))).toEqual([]);
    const html = path.join(stateDir, 'report.html');
    const report = await cli(['report', runName, '--html', html], { TEMPORAL_ADDRESS: env.address });
    expect(report.exitCode, report.all).toBe(0);
    expect(readFileSync(html, 'utf8')).toContain(ckpt);
  });
});
