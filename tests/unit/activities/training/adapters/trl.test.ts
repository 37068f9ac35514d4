// The TRL adapter without Python: argv it plans, lines it parses, which checkpoint it resumes from.
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trlAdapter, TRL_ENV } from '../../../../../activities/training/adapters/trl';
import type { CommonTrainOptions, TrainJob } from '../../../../../activities/training/adapters/types';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';

const SCRIPT = path.join(PROJECT_ROOT, 'activities/training/adapters/trl_train.py');

const job = (method: 'sft' | 'dpo'): TrainJob => ({
  method,
  base: '/m/base',
  dataDir: '/w/data',
  dataFile: '/w/data/train.jsonl',
  workDir: '/w/work',
  hfOutput: '/ckpt/iter-1',
  python: '/p/.venv/bin/python',
  seed: 7,
});
const options: CommonTrainOptions = {
  epochs: 1,
  batchSize: 4,
  gradientAccumulation: 2,
  maxLength: 512,
  saveSteps: 50,
  beta: 0.1,
  extraArgs: [],
};
const common = [
  '--model',
  '/m/base',
  '--data',
  '/w/data',
  '--output-dir',
  '/w/work',
  '--hf-output',
  '/ckpt/iter-1',
  '--epochs',
  '1',
  '--batch-size',
  '4',
  '--gradient-accumulation',
  '2',
  '--max-length',
  '512',
  '--save-steps',
  '50',
  '--seed',
  '7',
];

describe('trlAdapter.plan', () => {
  it('SFT: one train step running the wrapper with the venv python, offline', () => {
    const steps = trlAdapter.plan(job('sft'), { ...options, maxSteps: 6, learningRate: 1e-5, extraArgs: ['--warmup_ratio', '0.1'] });
    expect(steps).toEqual([
      {
        name: 'train',
        argv: [
          '/p/.venv/bin/python',
          SCRIPT,
          '--method',
          'sft',
          ...common,
          '--max-steps',
          '6',
          '--learning-rate',
          '0.00001',
          '--warmup_ratio',
          '0.1',
        ],
        env: { HF_HUB_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false', PYTHONUNBUFFERED: '1' },
        badInputExitCode: 2, // trl_train.py's bad rows / options: not retried
      },
    ]);
  });

  it('DPO adds beta; a resume point adds --resume-from', () => {
    const [step] = trlAdapter.plan(job('dpo'), { ...options, beta: 0.25 }, { path: '/w/work/checkpoint-4', step: 4 });
    expect(step.argv).toEqual([
      '/p/.venv/bin/python',
      SCRIPT,
      '--method',
      'dpo',
      ...common,
      '--beta',
      '0.25',
      '--resume-from',
      '/w/work/checkpoint-4',
    ]);
    expect(step.env).toEqual(TRL_ENV);
  });

  it("online DPO: the recipe's converter first, then the wrapper with beta, the reward service and the futures", () => {
    const rollout = { converter: { script: '/r/to_verl.py', args: ['--task-kind', 'math'] }, agentLoop: { name: 'a', target: 'x.A' } };
    const online = {
      ...job('dpo'),
      method: 'online_dpo' as const,
      onlineRl: { ...rollout, interactionName: 'i', rewardUrl: 'http://127.0.0.1:9' },
    };
    const steps = trlAdapter.plan(online, {
      ...options,
      onlineDpo: { futures: 2, maxUserTurns: 3, maxAssistantTurns: 4, maxNewTokens: 64, temperature: 0.7 },
    });
    expect(steps.map((s) => s.name)).toEqual(['prepare', 'train']);
    expect(steps[0].argv).toEqual([
      '/p/.venv/bin/python',
      '/r/to_verl.py',
      '--task-kind',
      'math',
      ...['--agent-name', 'a', '--interaction-name', 'i', '--seed', '7', '--out-dir', '/w/data', '/w/data/train.jsonl'],
    ]);
    expect(steps[1].argv).toEqual([
      '/p/.venv/bin/python',
      SCRIPT,
      '--method',
      'online_dpo',
      ...common,
      ...['--beta', '0.1', '--reward-url', 'http://127.0.0.1:9', '--futures', '2', '--max-user-turns', '3'],
      ...['--max-assistant-turns', '4', '--max-new-tokens', '64', '--temperature', '0.7'],
    ]);
    expect(() => trlAdapter.plan({ ...online, onlineRl: undefined }, options)).toThrow(/no reward service/);
  });

  it('a launcher replaces the python executable (it runs the script itself)', () => {
    const [step] = trlAdapter.plan(job('sft'), { ...options, launcher: ['accelerate', 'launch', '--num_processes', '2'] });
    expect(step.argv.slice(0, 6)).toEqual(['accelerate', 'launch', '--num_processes', '2', SCRIPT, '--method']);
    expect(step.argv).not.toContain('/p/.venv/bin/python');
  });

  it('versionCommand asks the venv python for package versions', () => {
    const argv = trlAdapter.versionCommand(job('sft'));
    expect(argv.slice(0, 2)).toEqual(['/p/.venv/bin/python', '-c']);
    expect(argv[2]).toContain("'trl', 'transformers', 'torch'");
  });
});

describe('trlAdapter.parseLine', () => {
  it.each([
    ['collab-loop-progress {"step": 3, "loss": 6.57}', { step: 3, loss: 6.57 }],
    ['collab-loop-checkpoint {"path": "/w/work/checkpoint-4", "step": 4}', { step: 4, checkpoint: '/w/work/checkpoint-4' }],
    ['collab-loop-resumed {"step": 4}', { step: 4 }],
    ['collab-loop-done {"path": "/ckpt/iter-1", "step": 8, "loss": 6.31, "train_loss": 6.5}', { step: 8, loss: 6.31 }],
    ["{'loss': '5.813', 'grad_norm': '2.588', 'learning_rate': '1.8e-05', 'epoch': '0.25'}", { loss: 5.813 }],
    ["{'loss': 0.6931, 'grad_norm': 0.87, 'rewards/margins': '0'}", { loss: 0.6931 }],
    ["{'grad_norm': '2.5', 'loss': '1e-03', 'epoch': '0.5'}", { loss: 0.001 }],
    ["{'train_runtime': '0.66', 'train_loss': '6.593', 'epoch': '0.75'}", {}],
    ["{'loss': 'nan', 'epoch': '1'}", {}],
    ['collab-loop-progress {not json', {}],
    ['[transformers] mtime may not be reliable on this filesystem', {}],
    ['', {}],
  ])('%s', (line, expected) => {
    expect(trlAdapter.parseLine(line)).toEqual(expected);
  });
});

describe('trlAdapter.findResumePoint', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'trl-resume-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const checkpoint = (work: string, name: string, state?: string) => {
    mkdirSync(path.join(work, name), { recursive: true });
    if (state !== undefined) writeFileSync(path.join(work, name, 'trainer_state.json'), state);
  };

  it('picks the highest complete checkpoint, ignoring *.tmp, missing or cut-short trainer_state.json', () => {
    const work = path.join(root, 'a');
    checkpoint(work, 'checkpoint-2', '{"global_step": 2}');
    checkpoint(work, 'checkpoint-10', '{"global_step": 10}'); // numeric, not lexical order
    checkpoint(work, 'checkpoint-12'); // being written: no trainer_state.json yet
    checkpoint(work, 'checkpoint-14', '{"global_step": 1'); // killed mid-write
    checkpoint(work, 'checkpoint-16.tmp', '{"global_step": 16}');
    writeFileSync(path.join(work, 'checkpoint-18'), 'a file, not a directory');
    mkdirSync(path.join(work, 'runs'));
    expect(trlAdapter.findResumePoint(work)).toEqual({ path: path.join(work, 'checkpoint-10'), step: 10 });
  });

  it('nothing to resume: missing work dir, or no complete checkpoint', () => {
    expect(trlAdapter.findResumePoint(path.join(root, 'missing'))).toBeUndefined();
    const work = path.join(root, 'b');
    checkpoint(work, 'checkpoint-6.tmp', '{"global_step": 6}');
    checkpoint(work, 'checkpoint-2');
    expect(trlAdapter.findResumePoint(work)).toBeUndefined();
  });
});
