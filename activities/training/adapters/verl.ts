// verl (verl docs): SFT here, and GRPO and PPO with multi-turn rollouts (methods grpo, ppo: ./verl-grpo.ts). No DPO:
// `verl.trainer.fsdp_sft_trainer` has an SFT loss and nothing else, and verl's preference and reward training is
// online RL (main_ppo: PPO/GRPO with a rollout engine), not an offline DPO trainer.
//   prepare: train.jsonl → train.parquet (+ a small val.parquet: the trainer always builds a validation set and runs
//            it at the last step) with ./jsonl_to_parquet.py; message lists stay nested lists.
//   train:   torchrun --standalone --nnodes=1 --nproc_per_node=N -m verl.trainer.fsdp_sft_trainer key=value …
//            (Hydra overrides, no dashes). trainer.logger=console replaces the default ['console','wandb'].
//   export:  ./verl_export.py merges the checkpoint named by latest_checkpointed_iteration.txt with
//            `python -m verl.model_merger merge --backend fsdp` into hfOutput. The step number is only known after
//            training (the trainer always saves its last step), so that small script reads it then.
// Resume: trainer.resume_mode=auto loads the checkpoint named by WORK/latest_checkpointed_iteration.txt, which the
// trainer rewrites atomically after global_step_N and its data.pt are saved; findResumePoint reads the same file.
//
// Loss (checked in verl HEAD, 2026-01): with data.multiturn.enable the MultiTurnSFTDataset puts loss on EVERY
// assistant message and has no per-message mask field (the single-turn SFTDataset takes a one-string prompt, so it
// cannot hold a conversation). Our rows are the conversation so far + the target, so verl also trains on the
// speaker's earlier turns in the row — again in each later row — and, in the student's view, on the question it
// "asked" as turn 0. TRL/OpenRLHF/fairseq2 rows train the last turn only; with verl the data weighs earlier turns
// more. A custom dataset class (data.custom_cls.path/name, via extraArgs) is the way to mask them if that matters.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { isOnlineMethod } from '../../../contracts/train-methods';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { packageVersionsCommand } from './package-versions';
import { planVerlGrpo, verlGrpoOptionsSchema, verlPpoOptionsSchema } from './verl-grpo';
import { JSONL_TO_PARQUET, VERL_EXPORT } from './verl-python';

export const verlOptionsSchema = z.strictObject({
  gpus: z.number().int().positive().default(1).meta({
    description:
      'GPUs the default launcher starts (torchrun --nproc_per_node); with batchSize × gradientAccumulation it sets the global batch.',
  }),
  truncation: z.enum(['error', 'left', 'right']).default('left').meta({
    description: "A row longer than maxLength: verl's default 'error' stops the run; 'left' keeps the end, i.e. the target turn.",
  }),
  grpo: verlGrpoOptionsSchema.prefault({}).meta({ description: "methods grpo and ppo: the online RL run's options." }),
  ppo: verlPpoOptionsSchema.prefault({}).meta({ description: 'method ppo: its critic.' }),
});
export type VerlOptions = CommonTrainOptions & z.infer<typeof verlOptionsSchema>;

/** Rows of val.parquet: verl validates at the last step (and every test_freq steps); a sample of train is enough. */
export const VERL_VAL_ROWS = 64;
export const VERL_TRACKER = 'latest_checkpointed_iteration.txt';

export const VERL_ENV: Record<string, string> = {
  HF_HUB_OFFLINE: '1',
  HF_DATASETS_OFFLINE: '1',
  TOKENIZERS_PARALLELISM: 'false',
  PYTHONUNBUFFERED: '1',
};

/** The step named by the tracker file, if its global_step_N dir (with the dataloader state, saved last) exists. */
function findResumePoint(workDir: string): ResumePoint | undefined {
  const tracker = path.join(workDir, VERL_TRACKER);
  if (!existsSync(tracker)) return undefined;
  const text = readFileSync(tracker, 'utf8').trim();
  if (!/^\d+$/.test(text)) return undefined;
  const dir = path.join(workDir, `global_step_${Number(text)}`);
  if (!existsSync(dir) || !statSync(dir).isDirectory() || !existsSync(path.join(dir, 'data.pt'))) return undefined;
  return { path: dir, step: Number(text) };
}

/** Hydra parses `key=value`: quote values with characters its grammar treats specially (spaces, commas, = …). */
export function hydraValue(v: string | number): string {
  const s = String(v);
  return /^[\w/.+@-]+$/.test(s) ? s : `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function plan(job: TrainJob, o: VerlOptions): TrainStep[] {
  if (isOnlineMethod(job.method)) return planVerlGrpo(job, o, VERL_ENV, hydraValue);
  const train = path.join(job.dataDir, 'train.parquet');
  const val = path.join(job.dataDir, 'val.parquet');
  const overrides: Array<[string, string | number]> = [
    ['data.train_files', train],
    ['data.val_files', val],
    ['data.multiturn.enable', 'true'],
    ['data.multiturn.messages_key', 'messages'],
    ['data.max_length', o.maxLength],
    ['data.truncation', o.truncation],
    ['data.micro_batch_size_per_gpu', o.batchSize],
    ['data.train_batch_size', o.batchSize * o.gradientAccumulation * o.gpus], // global; verl divides it by the dp size
    ['model.partial_pretrain', job.base],
    ['trainer.default_local_dir', job.workDir],
    ['trainer.logger', 'console'],
    ['trainer.total_epochs', Math.ceil(o.epochs)], // an int (range() in the trainer)
    // Stops early only: past total_epochs the loop ends without the final save (pick epochs to cover maxSteps).
    ...(o.maxSteps !== undefined ? [['trainer.total_training_steps', o.maxSteps] as [string, number]] : []),
    ['trainer.save_freq', o.saveSteps > 0 ? o.saveSteps : -1], // the last step is saved either way
    ['trainer.resume_mode', 'auto'],
    ['trainer.seed', job.seed],
    ...(o.learningRate !== undefined ? [['optim.lr', o.learningRate] as [string, number]] : []),
  ];
  const launcher = o.launcher ?? ['torchrun', '--standalone', '--nnodes=1', `--nproc_per_node=${o.gpus}`];
  return [
    {
      name: 'prepare',
      argv: [
        job.python,
        JSONL_TO_PARQUET,
        job.dataFile,
        train,
        '--messages-key',
        'messages',
        '--val-output',
        val,
        '--val-rows',
        String(VERL_VAL_ROWS),
      ],
      env: { ...VERL_ENV },
    },
    {
      name: 'train',
      argv: [...launcher, '-m', 'verl.trainer.fsdp_sft_trainer', ...overrides.map(([k, v]) => `${k}=${hydraValue(v)}`), ...o.extraArgs],
      env: { ...VERL_ENV },
    },
    {
      name: 'export',
      argv: [job.python, VERL_EXPORT, '--work-dir', job.workDir, '--out', job.hfOutput],
      env: { ...VERL_ENV },
    },
  ];
}

const NUM = String.raw`(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|-?inf)`;
// Console logger: "step:12 - train/loss:0.873 - train/lr(1e-3):0.01 - train/time(s):1.2" (val lines: val/loss);
// main_ppo's: "step:12 - actor/pg_loss:-0.0031 - critic/score/mean:0.41 - …" (numpy 2 prints np.float64(…)).
const METRICS = /\bstep:(\d+) - (.*)$/;
const metric = (name: string) => new RegExp(String.raw`(?:^| - )${name}:(?:np\.float(?:32|64)\()?${NUM}\)?(?: - |\s*$)`);
const TRAIN_LOSS = metric('train/loss');
const PG_LOSS = metric('actor/pg_loss');
// Rank 0 saves the dataloader state after the model shards, then updates the tracker.
const SAVED = /\bSaved dataloader state to: (\S*?global_step_(\d+))\/data\.pt\b/;
const FOUND = /\bFound latest checkpoint: (\S+) \(step (\d+)\)/;
// main_ppo announces the step's folder before it writes the actor, data.pt and the tracker, and the one it resumes.
const PPO_SAVING = /\blocal_global_step_folder: (\S*?global_step_(\d+))\/?$/;
const PPO_RESUMED = /\bLoad from checkpoint folder: (\S*?global_step_(\d+))\/?$/;

function parseLine(line: string): TrainerProgress {
  const m = METRICS.exec(line);
  if (m) {
    const t = TRAIN_LOSS.exec(m[2]) ?? PG_LOSS.exec(m[2]);
    if (!t) return {};
    const loss = Number(t[1]);
    return Number.isFinite(loss) ? { step: Number(m[1]), loss } : { step: Number(m[1]) };
  }
  const s = SAVED.exec(line) ?? FOUND.exec(line) ?? PPO_SAVING.exec(line) ?? PPO_RESUMED.exec(line);
  return s ? { step: Number(s[2]), checkpoint: s[1] } : {};
}

export const verlAdapter: TrainerAdapter<VerlOptions> = {
  dataFormat: 'verl',
  methods: ['sft', 'grpo', 'ppo'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) =>
    packageVersionsCommand(
      job.python,
      isOnlineMethod(job.method) ? ['verl', 'vllm', 'transformers', 'torch'] : ['verl', 'transformers', 'torch'],
    ),
};
