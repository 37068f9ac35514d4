// OpenRLHF trains for real on CPU: openrlhf 0.11.2 + DeepSpeed 0.19.6 from ./.venv-openrlhf (requirements-openrlhf.txt,
// `node bin/setup.js --engines`) run SFT and DPO on the tiny Llama through the train stage — `trainer.kind:
// openrlhf` with `trainer.python` naming the venv, so the adapter's `deepspeed` launcher is that venv's console
// script — from rows the loop's data builders write (activities/data/formats.ts). DeepSpeed's CPU accelerator
// (DS_ACCELERATOR=cpu, gloo), ZeRO stage 0, sdpa attention; fixtures/openrlhf-cpu/sitecustomize.py stands in for the
// four CUDA-only calls OpenRLHF makes (listed there, with file:line). The result: a Hugging Face checkpoint the TRL
// venv's transformers (the one `transformers serve` deploys with) loads, DeepSpeed states a retry resumes from (SFT:
// resumed for real), and the loss the adapter read off OpenRLHF's own progress bar. Run by `npm run test:engines`.
import { MockActivityEnvironment } from '@temporalio/testing';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { storeFor } from '../../activities/artifacts/store';
import { formatPreferences, formatSft } from '../../activities/data/formats';
import { trainCheckpoint } from '../../activities/stages/train-checkpoint';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { openrlhfAdapter } from '../../activities/training/adapters/openrlhf';
import type { TrainResult } from '../../contracts/run';
import { tempStateDir, testConfig } from '../helpers/config';
import { enginePython, requireEngines } from '../helpers/engines';
import { tinyBaseCheckpoint, VENV_PYTHON } from '../helpers/tiny-model';

const VENV = path.dirname(enginePython('openrlhf'));
const CPU_SHIM = path.join(PROJECT_ROOT, 'tests', 'engines', 'fixtures', 'openrlhf-cpu');
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

// 16 rows, 2 optimizer steps of 2 × 2: the conversation so far + the target turn, as the CoRal builders make them.
const examples = Array.from({ length: 16 }, (_, i) => ({
  taskId: `t${i}`,
  sampleIndex: 0,
  turn: 1,
  messages: [
    { role: 'user' as const, content: `What is ${i} + 7?` },
    { role: 'assistant' as const, content: `I think it is ${i + 6}.` },
    { role: 'user' as const, content: 'Are you sure? Check again.' },
  ],
}));
const sftRows = formatSft(
  examples.map((e, i) => ({ ...e, completion: `${i + 7}` })),
  'openrlhf',
).map((l) => JSON.parse(l));
const dpoRows = formatPreferences(
  examples.map((e, i) => ({ ...e, chosen: `It is ${i + 7}.`, rejected: `It is ${i + 6}.` })),
  'openrlhf',
).map((l) => JSON.parse(l));

async function train(method: 'sft' | 'dpo') {
  requireEngines('openrlhf');
  const stateDir = tempStateDir(`openrlhf-${method}-`);
  const base = await tinyBaseCheckpoint(stateDir);
  const config = testConfig(stateDir, (c) => {
    c.iterations = 1;
    c.baseCheckpoint = base;
    c.trainer = {
      kind: 'openrlhf',
      method,
      python: path.join(VENV, 'python'),
      maxSteps: 2,
      saveSteps: 1,
      batchSize: 2,
      gradientAccumulation: 2,
      maxLength: 256,
      learningRate: 0.001,
      zeroStage: 0,
      attnImplementation: 'sdpa',
      // --master_port: DeepSpeed's default 29500 may be taken by another rendezvous on a shared host.
      launcher: ['deepspeed', '--num_gpus', '1', '--master_port', method === 'sft' ? '29617' : '29618'],
      env: { DS_ACCELERATOR: 'cpu', PYTHONPATH: CPU_SHIM },
      maximumAttempts: 1,
      heartbeatTimeoutSeconds: 120,
    };
  });
  const data = await storeFor(config).putJsonl(method === 'sft' ? sftRows : dpoRows);
  const input = { runName: 'or', iteration: 0, config, checkpoint: base, data: { [method]: data } };
  const result = (await new MockActivityEnvironment().run(trainCheckpoint, input)) as TrainResult;
  const output = path.join(stateDir, 'checkpoints', 'or', 'iter-1');
  const log = readFileSync(path.join(stateDir, 'logs', 'or', 'train-iter-0.log'), 'utf8');
  const root = path.join(stateDir, 'train', 'or', 'iter-0');
  const logFile = path.join(stateDir, 'logs', 'or', 'train-iter-0.log');
  /** The same stage again, as a retry runs it. */
  const retry = async () => (await new MockActivityEnvironment().run(trainCheckpoint, input)) as TrainResult;
  return { base, output, log, result, root, workDir: path.join(root, 'work'), logFile, retry };
}

/** What the next deploy (`transformers serve` in .venv) sees: the checkpoint loads and names its architecture. */
async function loadsWithTransformers(dir: string): Promise<string> {
  const program = 'import sys, transformers as t; print(type(t.AutoModelForCausalLM.from_pretrained(sys.argv[1])).__name__)';
  return (await execa(VENV_PYTHON, ['-c', program, dir])).stdout.trim().split('\n').pop() ?? '';
}

describe.each(['sft', 'dpo'] as const)('OpenRLHF %s on CPU through the train stage', (method) => {
  it('trains the tiny model from the loop rows into a checkpoint the next deploy loads, with DeepSpeed states a retry resumes from', async () => {
    const { base, output, log, result, root, workDir, logFile, retry } = await train(method);
    // The adapter's launcher ran from the venv trainer.python names, with the module of the method.
    const argv: string[] = JSON.parse(/· train: (\[.*\])\n/.exec(log)![1]);
    expect(argv.slice(0, 1)).toEqual([path.join(VENV, 'deepspeed')]);
    expect(argv).toContain(method === 'sft' ? 'openrlhf.cli.train_sft' : 'openrlhf.cli.train_dpo');
    // OpenRLHF's own progress bar gave the adapter a loss (DPO starts at ln 2 with the reference = the policy).
    expect(Number.isFinite(result.finalLoss)).toBe(true);
    if (method === 'dpo') expect(log).toMatch(/Train step of epoch 0: .*\bloss=0\.69/);
    // New weights, saved where the loop expects the next checkpoint, loadable by the serving venv's transformers.
    expect(result.checkpoint).toBe(output);
    expect(sha(path.join(output, 'model.safetensors'))).not.toBe(sha(path.join(base, 'model.safetensors')));
    expect(await loadsWithTransformers(output)).toBe('LlamaForCausalLM');
    const lineage = JSON.parse(readFileSync(path.join(output, 'collab-loop-checkpoint.json'), 'utf8'));
    expect(JSON.stringify(lineage)).toContain('openrlhf 0.11.2, deepspeed 0.19.6');
    // maxSteps 2 × saveSteps 1: DeepSpeed's tags; a retry would resume from the one `latest` names.
    expect(readFileSync(path.join(workDir, 'checkpoints', 'latest'), 'utf8').trim()).toBe('global_step2');
    expect(openrlhfAdapter.findResumePoint(workDir)).toEqual({ path: path.join(workDir, 'checkpoints', 'global_step2'), step: 2 });
    if (method === 'sft') {
      // The worker died after DeepSpeed saved global_step2 and before OpenRLHF wrote the Hugging Face model: the retry
      // adds the load flag, and OpenRLHF loads that tag and skips the samples it had consumed.
      rmSync(output, { recursive: true });
      rmSync(path.join(root, 'trainer-finished.json'), { force: true });
      const resumed = await retry();
      expect(resumed.resumedFromStep).toBe(2);
      const retried = readFileSync(logFile, 'utf8').slice(log.length);
      expect(JSON.parse(/· train: (\[.*\])\n/.exec(retried)![1])).toContain('--ckpt.load_enable');
      expect(retried).toContain(`Loaded the checkpoint: ${path.join(workDir, 'checkpoints')}, consumed_samples: 8`);
      expect(await loadsWithTransformers(output)).toBe('LlamaForCausalLM');
    }
  }, 900_000);
});
