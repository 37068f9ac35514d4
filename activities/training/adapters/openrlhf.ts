// OpenRLHF (OpenRLHF docs): `deepspeed --num_gpus N --module openrlhf.cli.train_sft|train_dpo`. v0.10.2 renamed every
// flag into dotted groups with no aliases: `flags: dotted` (default, ≥ 0.10.2) or `legacy` (≤ 0.10.1);
// detectOpenRlhfFlags tells them apart from `--help`.
// Rows: SFT {"messages":[…]} whose last message is the target (--apply_chat_template --input_key messages; no
// --multiturn, which would also train on the speaker's earlier turns); DPO {"prompt":[…],"chosen":[…],"rejected":[…]}
// (--prompt_key: the prompt is a message list, chosen/rejected are appended to it).
// Output: the final Hugging Face model is saved once, at the end, straight to hfOutput. Resume: DeepSpeed states go
// to WORK/checkpoints/global_step{N} every saveSteps; a retry adds the load flag, and DeepSpeed loads the tag named
// by WORK/checkpoints/latest (then OpenRLHF skips the consumed samples).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { packageVersionsCommand } from './package-versions';

export const openrlhfOptionsSchema = z.strictObject({
  flags: z.enum(['dotted', 'legacy']).default('dotted').meta({
    description:
      "The installed OpenRLHF's flag names: dotted (≥ 0.10.2: `--model.model_name_or_path`, …) or legacy (≤ 0.10.1: `--pretrain`, …).",
  }),
  gpus: z.number().int().positive().default(1).meta({
    description: 'GPUs the default launcher starts (deepspeed --num_gpus); with batchSize × gradientAccumulation it sets the global batch.',
  }),
  zeroStage: z.number().int().min(0).max(3).default(2).meta({ description: "DeepSpeed's ZeRO stage." }),
  attnImplementation: z
    .string()
    .min(1)
    .optional()
    .meta({ description: "Attention kernel; OpenRLHF's default flash_attention_2 needs flash-attn built for the GPU." }),
});
export type OpenRlhfOptions = CommonTrainOptions & z.infer<typeof openrlhfOptionsSchema>;

/** `python -m openrlhf.cli.train_sft --help` output → which flag generation is installed. */
export function detectOpenRlhfFlags(helpText: string): 'dotted' | 'legacy' {
  return /--data\.dataset\b/.test(helpText) ? 'dotted' : 'legacy';
}

// Every flag the plan uses in both spellings, one row per meaning: ≤ 0.10.1 (legacy) and ≥ 0.10.2 (dotted), read
// from openrlhf/cli/train_sft.py and train_dpo.py of each line (seed and attention too: --train.seed, --ds.attn_…).
// No precision flag: bf16 is the default of both generations' --param_dtype (only ≤ 0.9.4 had a --bf16 switch).
const FLAGS = {
  model: { legacy: '--pretrain', dotted: '--model.model_name_or_path' },
  ref: { legacy: '--ref_pretrain', dotted: '--ref.model_name_or_path' },
  output: { legacy: '--save_path', dotted: '--ckpt.output_dir' },
  ckptPath: { legacy: '--ckpt_path', dotted: '--ckpt.path' },
  saveSteps: { legacy: '--save_steps', dotted: '--ckpt.save_steps' },
  load: { legacy: '--load_checkpoint', dotted: '--ckpt.load_enable' },
  dataset: { legacy: '--dataset', dotted: '--data.dataset' },
  maxSamples: { legacy: '--max_samples', dotted: '--data.max_samples' },
  maxLen: { legacy: '--max_len', dotted: '--data.max_len' },
  applyChatTemplate: { legacy: '--apply_chat_template', dotted: '--data.apply_chat_template' },
  inputKey: { legacy: '--input_key', dotted: '--data.input_key' },
  promptKey: { legacy: '--prompt_key', dotted: '--data.prompt_key' },
  chosenKey: { legacy: '--chosen_key', dotted: '--data.chosen_key' },
  rejectedKey: { legacy: '--rejected_key', dotted: '--data.rejected_key' },
  zeroStage: { legacy: '--zero_stage', dotted: '--ds.zero_stage' },
  attn: { legacy: '--attn_implementation', dotted: '--ds.attn_implementation' },
  microBatch: { legacy: '--micro_train_batch_size', dotted: '--train.micro_batch_size' },
  batch: { legacy: '--train_batch_size', dotted: '--train.batch_size' },
  epochs: { legacy: '--max_epochs', dotted: '--train.max_epochs' },
  lr: { legacy: '--learning_rate', dotted: '--adam.lr' },
  beta: { legacy: '--beta', dotted: '--model.beta' },
  seed: { legacy: '--seed', dotted: '--train.seed' },
} as const;

export const OPENRLHF_ENV: Record<string, string> = {
  HF_HUB_OFFLINE: '1',
  HF_DATASETS_OFFLINE: '1',
  TOKENIZERS_PARALLELISM: 'false',
  PYTHONUNBUFFERED: '1',
};

/** Its own directory: OpenRLHF rotates checkpoints by deleting the oldest sub-directories of ckpt.path. */
const checkpointsDir = (workDir: string) => path.join(workDir, 'checkpoints');

/**
 * The tag named by `latest`: DeepSpeed writes that file only after the tag's files are saved, and a resumed run
 * loads exactly that tag; a newer global_step dir it does not name was cut short. The tag's model states
 * (mp_rank_00_model_states.pt, or zero_pp_rank_*_model_states.pt with ZeRO-3) must be there too.
 */
function findResumePoint(workDir: string): ResumePoint | undefined {
  const latest = path.join(checkpointsDir(workDir), 'latest');
  if (!existsSync(latest)) return undefined;
  const tag = readFileSync(latest, 'utf8').trim();
  const m = /^global_step(\d+)$/.exec(tag);
  const dir = path.join(checkpointsDir(workDir), tag);
  if (!m || !existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
  return readdirSync(dir).some((f) => f.endsWith('model_states.pt')) ? { path: dir, step: Number(m[1]) } : undefined;
}

function plan(job: TrainJob, o: OpenRlhfOptions, resume?: ResumePoint): TrainStep[] {
  const f = (k: keyof typeof FLAGS) => FLAGS[k][o.flags];
  const globalBatch = o.batchSize * o.gradientAccumulation * o.gpus;
  const args = [
    f('model'),
    job.base,
    ...(job.method === 'dpo' ? [f('ref'), job.base] : []), // the reference is the policy's starting point
    f('dataset'),
    job.dataFile,
    f('applyChatTemplate'),
    ...(job.method === 'dpo'
      ? [f('promptKey'), 'prompt', f('chosenKey'), 'chosen', f('rejectedKey'), 'rejected']
      : [f('inputKey'), 'messages']),
    f('maxLen'),
    String(o.maxLength),
    f('microBatch'),
    String(o.batchSize),
    f('batch'),
    String(globalBatch),
    // --max_epochs is an int and there is no max-steps flag: maxSteps = one epoch over maxSteps × global batch rows.
    f('epochs'),
    String(o.maxSteps !== undefined ? 1 : Math.ceil(o.epochs)),
    ...(o.maxSteps !== undefined ? [f('maxSamples'), String(o.maxSteps * globalBatch)] : []),
    ...(o.learningRate !== undefined ? [f('lr'), String(o.learningRate)] : []),
    ...(job.method === 'dpo' ? [f('beta'), String(o.beta)] : []),
    f('seed'),
    String(job.seed),
    f('zeroStage'),
    String(o.zeroStage),
    ...(o.attnImplementation ? [f('attn'), o.attnImplementation] : []),
    f('output'),
    job.hfOutput,
    f('ckptPath'),
    checkpointsDir(job.workDir),
    f('saveSteps'),
    String(o.saveSteps > 0 ? o.saveSteps : -1), // -1: no DeepSpeed states (nothing to resume)
    ...(resume ? [f('load')] : []),
  ];
  const module = job.method === 'dpo' ? 'openrlhf.cli.train_dpo' : 'openrlhf.cli.train_sft';
  const launcher = o.launcher ?? ['deepspeed', '--num_gpus', String(o.gpus)];
  return [{ name: 'train', argv: [...launcher, '--module', module, ...args, ...o.extraArgs], env: { ...OPENRLHF_ENV } }];
}

const NUM = String.raw`(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|-?inf)`;
// rank-0 tqdm: "Train step of epoch 0:  40%|####      | 4/10 [00:12<00:18,  3.01s/it, gpt_loss=1.23, lr=5e-6, …]"
// (DPO: "loss=0.69, acc=0.5, chosen_reward=…"). The bar counts micro-batches within an epoch, not optimizer steps,
// so only the loss is taken from it; \b keeps nll_loss / aux_loss out.
const BAR_LOSS = new RegExp(String.raw`\bTrain step of epoch \d+.*?[\s,](?:gpt_loss|loss)=${NUM}[,\]\s]`);
// DeepSpeed: "Saving model checkpoint: …/global_step20/mp_rank_00_model_states.pt", and (older releases)
// "[Torch] Checkpoint global_step20 is ready now!" once every file of the tag is written.
const SAVING = /\bSaving model checkpoint: \S*?\bglobal_step(\d+)\//;
const READY = /\bCheckpoint (global_step(\d+)) is ready now\b/;

function parseLine(line: string): TrainerProgress {
  const bar = BAR_LOSS.exec(line);
  if (bar) {
    const loss = Number(bar[1]);
    return Number.isFinite(loss) ? { loss } : {};
  }
  const ready = READY.exec(line);
  if (ready) return { step: Number(ready[2]), checkpoint: ready[1] }; // the tag, under WORK/checkpoints
  const saving = SAVING.exec(line);
  return saving ? { step: Number(saving[1]) } : {};
}

export const openrlhfAdapter: TrainerAdapter<OpenRlhfOptions> = {
  dataFormat: 'openrlhf',
  methods: ['sft', 'dpo'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) => packageVersionsCommand(job.python, ['openrlhf', 'deepspeed', 'transformers', 'torch']),
};
