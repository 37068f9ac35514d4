// The loop with the engines a GPU cluster runs, on CPU: configs/demo-vllm-fairseq2.yaml (CoRal, vLLM's CPU build
// serving from ./.venv-vllm, fairseq2 0.4.6 training DPO from ./.venv-fairseq2, the tiny Llama-3 model), 2 iterations,
// with its worker SIGKILLed during iteration 0's fairseq2 training — its trainer with it, as when the node dies. A new
// worker retries the train stage, which resumes from the step fairseq2 saved; iteration 1 serves with vLLM what
// fairseq2 trained (its weights' sha256 in the lineage, not the base's). Agents are SIMULATED (a tiny random model cannot
// converse; the probe asks vLLM). Run by `npm run test:engines`.
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256File } from '../../activities/storage/content-hash';
import { fairseq2Adapter } from '../../activities/training/adapters/fairseq2';
import { trainPaths } from '../../activities/training/train-input';
import { loopWorkflowId } from '../../contracts/messages';
import type { LoopResult } from '../../workflows/loop';
import { cli, startCliWorker } from '../helpers/cli';
import { CONFIGS, tempStateDir } from '../helpers/config';
import { enginePython, requireEngines } from '../helpers/engines';
import { recordedGroups } from '../helpers/loop-groups';
import { startDevServer } from '../helpers/temporal';
import { tinyBaseCheckpoint, tinyModelLlama3 } from '../helpers/tiny-model';
import { waitUntil } from '../helpers/wait';

const VLLM_PYTHON = enginePython('vllm');

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  requireEngines('vllm', 'fairseq2');
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('configs/demo-vllm-fairseq2.yaml', () => {
  it('runs 2 iterations; a worker SIGKILLed mid-training is resumed from the saved step; iteration 1 serves what fairseq2 trained', async () => {
    const stateDir = tempStateDir('vllm-fairseq2-');
    const base = await tinyBaseCheckpoint(stateDir, tinyModelLlama3());
    const runName = 'vllm-fairseq2';
    const workerEnv = { TEMPORAL_ADDRESS: env.address };
    // 12 questions: enough DPO pairs that no saved step (every 2 steps of 4 rows) ends a pass over the data, where
    // fairseq2 0.4.6 cannot resume (activities/training/adapters/fairseq2.ts). A short heartbeat timeout: the
    // killed worker's train activity is handed to the new worker 20 s after its last heartbeat.
    const sets = [`stateDir=${stateDir}`, `baseCheckpoint=${base}`, 'recipe.limit=12', 'trainer.heartbeatTimeoutSeconds=20'];
    const first = await startCliWorker(workerEnv);
    let second: Awaited<ReturnType<typeof startCliWorker>> | undefined;
    try {
      const started = await cli(
        ['start', path.join(CONFIGS, 'demo-vllm-fairseq2.yaml'), '--name', runName, ...sets.flatMap((s) => ['--set', s])],
        workerEnv,
      );
      expect(started.exitCode, started.all).toBe(0);

      const { root, pidFile, logFile } = trainPaths(stateDir, runName, 0);
      const work = path.join(root, 'work');
      const saved = await waitUntil(async () => fairseq2Adapter.findResumePoint(work), 900_000, 'a step saved by fairseq2');
      const trainer = JSON.parse(readFileSync(pidFile, 'utf8')).pid as number;
      first.worker.kill('SIGKILL');
      process.kill(-trainer, 'SIGKILL');
      await first.worker;
      const killedAt = fairseq2Adapter.findResumePoint(work)!.step;
      expect(killedAt).toBeGreaterThanOrEqual(saved.step);
      expect(killedAt).toBeLessThan(8);

      second = await startCliWorker(workerEnv);
      const result = (await env.client.workflow.getHandle(loopWorkflowId(runName)).result()) as LoopResult;
      expect(result.iterations).toHaveLength(2);

      // Iteration 0: DPO on more rows than the steps read, resumed from the killed trainer's saved step to the total.
      const [it0, it1] = result.iterations;
      expect(it0.train).toMatchObject({ steps: 8, resumedFromStep: killedAt });
      const log = readFileSync(logFile, 'utf8');
      const retried = log.slice(log.indexOf('--- attempt 2 '));
      expect(retried).toContain(`Restoring training from step ${killedAt}.`);
      expect(retried).not.toMatch(new RegExp(`Train Metrics \\(step ${killedAt}\\)`)); // no saved step trained again
      const next = path.join(stateDir, 'checkpoints', runName, 'iter-1');
      expect(it0.nextCheckpoint).toBe(next);
      const lineage = JSON.parse(readFileSync(path.join(next, 'collab-loop-checkpoint.json'), 'utf8'));
      expect(lineage).toMatchObject({ trainer: 'fairseq2', method: 'dpo', baseCheckpoint: base, steps: 8, resumedFromStep: killedAt });
      expect(lineage.dataset.rows).toBeGreaterThan(32);
      expect(lineage.version).toMatch(/fairseq2 0\.4\.6/);
      // The weights it recorded are the exported file's, and not the base's.
      const trained = await sha256File(path.join(next, 'model.safetensors'));
      expect(lineage.weights).toEqual({ 'model.safetensors': trained });
      expect(trained).not.toBe(await sha256File(path.join(base, 'model.safetensors')));

      // Iteration 1: vLLM served that export, and the probe's greedy answers came from it.
      expect(it1.checkpoint).toBe(next);
      const deploy = JSON.parse(readFileSync(path.join(stateDir, 'artifacts/runs', runName, 'iter-1/deploy.json'), 'utf8'));
      expect(deploy.params.argv.slice(0, 5)).toEqual([VLLM_PYTHON, '-m', 'vllm.entrypoints.openai.api_server', '--model', next]);
      expect(deploy.outputs.probe.completionTokens).toBeGreaterThan(0);
      expect(it1.train).toMatchObject({ steps: 8 });
      // Nothing the run started is left running.
      expect(recordedGroups(stateDir)).toEqual([]);
    } finally {
      first.worker.kill('SIGKILL');
      await second?.stop();
    }
  }, 1_800_000);
});
