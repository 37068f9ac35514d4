// verl (brief B.3): SFT only — its SFT entry point has no offline preference (DPO) trainer; verl's RL trainers
// (PPO/GRPO) are online and out of this adapter's scope. Steps:
//   prepare: train.jsonl → train.parquet (scripts/python/jsonl_to_parquet.py; verl reads parquet only)
//   train:   torchrun --standalone --nnodes=1 --nproc_per_node=N -m verl.trainer.fsdp_sft_trainer key=value …
//            (Hydra overrides, no dashes; multi-turn `messages`; trainer.logger=console overrides the wandb default;
//            resume_mode=auto continues from the latest checkpoint in default_local_dir)
//   export:  scripts/python/verl_export.py picks the latest complete global_step_N and runs
//            `python -m verl.model_merger merge --backend fsdp --local_dir … --target_dir hfOutput`
//            (the step number is only known after training, hence the small script).
// Loss: with multiturn enabled verl trains on every assistant message of a row; our rows hold the agent's own earlier
// turns as assistant messages too, so those are trained again (the row's target is the last one) — a known
// difference from the TRL/OpenRLHF prompt-completion rows, accepted for verl.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { latestCompleteDir } from './checkpoint-dirs';

export const verlOptionsSchema = z.strictObject({
  nprocPerNode: z.number().int().positive().default(1),
  /** verl.trainer.fsdp_sft_trainer (default) or the newer verl.trainer.sft_trainer. */
  module: z.string().default('verl.trainer.fsdp_sft_trainer'),
});
export type VerlOptions = CommonTrainOptions & z.infer<typeof verlOptionsSchema>;

/** A global_step_N is complete once its Hugging Face config dir is written (the last part of a save). */
function findResumePoint(workDir: string): ResumePoint | undefined {
  return latestCompleteDir(workDir, /^global_step_(\d+)$/, (d) => existsSync(path.join(d, 'huggingface', 'config.json')));
}

function plan(job: TrainJob, o: VerlOptions): TrainStep[] {
  const parquet = path.join(job.dataDir, 'train.parquet');
  const script = (name: string) => path.join(job.project, 'scripts', 'python', name);
  const overrides = [
    `data.train_files=${parquet}`,
    `data.val_files=${parquet}`,
    'data.multiturn.enable=true',
    'data.multiturn.messages_key=messages',
    `data.max_length=${o.maxLength}`,
    `data.micro_batch_size_per_gpu=1`,
    `data.train_batch_size=${o.batchSize * o.gradientAccumulation}`,
    `model.partial_pretrain=${job.base}`,
    `trainer.default_local_dir=${job.workDir}`,
    'trainer.project_name=collab-loop',
    `trainer.experiment_name=${path.basename(path.dirname(job.workDir))}`,
    'trainer.logger=console',
    'trainer.resume_mode=auto',
    ...(o.maxSteps !== undefined ? [`trainer.total_training_steps=${o.maxSteps}`] : []),
    `trainer.total_epochs=${Math.max(1, Math.round(o.epochs))}`,
    ...(o.saveSteps > 0 ? [`trainer.save_freq=${o.saveSteps}`] : []),
    ...(o.learningRate !== undefined ? [`optim.lr=${o.learningRate}`] : []),
    ...o.extraArgs,
  ];
  const launcher = o.launcher ?? ['torchrun', '--standalone', '--nnodes=1', `--nproc_per_node=${o.nprocPerNode}`];
  return [
    { name: 'prepare', argv: [job.python, script('jsonl_to_parquet.py'), job.dataFile, parquet] },
    { name: 'train', argv: [...launcher, '-m', o.module, ...overrides] },
    { name: 'export', argv: [job.python, script('verl_export.py'), '--work-dir', job.workDir, '--out', job.hfOutput] },
  ];
}

const STEP = /\bstep:(\d+)\b.*?\btrain\/loss:(-?[0-9.]+(?:e[-+]?\d+)?)/;

function parseLine(line: string): TrainerProgress {
  const m = STEP.exec(line);
  return m ? { step: Number(m[1]), loss: Number(m[2]) } : {};
}

export const verlAdapter: TrainerAdapter<VerlOptions> = {
  kind: 'verl',
  dataFormat: 'verl',
  methods: ['sft'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) => [job.python, '-c', "import importlib.metadata as m; print('verl', m.version('verl'), 'torch', m.version('torch'))"],
};
