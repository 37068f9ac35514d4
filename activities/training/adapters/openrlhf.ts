// OpenRLHF (brief B.2): `deepspeed --module openrlhf.cli.train_sft|train_dpo`. Flag names changed in v0.10.2
// (dotted groups, no aliases): `flags: dotted` (default, ≥ 0.10.2) or `legacy` (≤ 0.10.1) — detectOpenRlhfFlags
// reads `--help` output to tell. Rows: SFT {"messages":[…]} whose last message is the target
// (--apply_chat_template --input_key messages, no --multiturn, which would train on earlier turns too); DPO
// {"prompt":[…],"chosen":[…],"rejected":[…]} with --prompt_key. The final Hugging Face model is saved straight
// to hfOutput; resumable DeepSpeed states go to WORK/ckpt (save steps + load flag).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { opt } from './checkpoint-dirs';

export const openrlhfOptionsSchema = z.strictObject({
  flags: z.enum(['dotted', 'legacy']).default('dotted'),
  zeroStage: z.number().int().min(0).max(3).default(2),
  /** Attention kernel; flash_attention_2 is OpenRLHF's default and needs a GPU build of flash-attn. */
  attnImplementation: z.string().optional(),
});
export type OpenRlhfOptions = CommonTrainOptions & z.infer<typeof openrlhfOptionsSchema>;

/** `--help` output → which flag generation is installed. */
export function detectOpenRlhfFlags(helpText: string): 'dotted' | 'legacy' {
  return /--data\.dataset\b/.test(helpText) ? 'dotted' : 'legacy';
}

type Key = 'model' | 'ref' | 'out' | 'ckptPath' | 'saveSteps' | 'load' | 'dataset' | 'maxLen' | 'applyTemplate' | 'inputKey'
  | 'promptKey' | 'chosenKey' | 'rejectedKey' | 'zero' | 'dtype' | 'micro' | 'batch' | 'epochs' | 'lr' | 'beta';

// The mapping table of brief B.2, one row per meaning.
const FLAGS: Record<Key, { legacy: string; dotted: string }> = {
  model: { legacy: '--pretrain', dotted: '--model.model_name_or_path' },
  ref: { legacy: '--ref_pretrain', dotted: '--ref.model_name_or_path' },
  out: { legacy: '--save_path', dotted: '--ckpt.output_dir' },
  ckptPath: { legacy: '--ckpt_path', dotted: '--ckpt.path' },
  saveSteps: { legacy: '--save_steps', dotted: '--ckpt.save_steps' },
  load: { legacy: '--load_checkpoint', dotted: '--ckpt.load_enable' },
  dataset: { legacy: '--dataset', dotted: '--data.dataset' },
  maxLen: { legacy: '--max_len', dotted: '--data.max_len' },
  applyTemplate: { legacy: '--apply_chat_template', dotted: '--data.apply_chat_template' },
  inputKey: { legacy: '--input_key', dotted: '--data.input_key' },
  promptKey: { legacy: '--prompt_key', dotted: '--data.prompt_key' },
  chosenKey: { legacy: '--chosen_key', dotted: '--data.chosen_key' },
  rejectedKey: { legacy: '--rejected_key', dotted: '--data.rejected_key' },
  zero: { legacy: '--zero_stage', dotted: '--ds.zero_stage' },
  dtype: { legacy: '--bf16', dotted: '--ds.param_dtype' },
  micro: { legacy: '--micro_train_batch_size', dotted: '--train.micro_batch_size' },
  batch: { legacy: '--train_batch_size', dotted: '--train.batch_size' },
  epochs: { legacy: '--max_epochs', dotted: '--train.max_epochs' },
  lr: { legacy: '--learning_rate', dotted: '--adam.lr' },
  beta: { legacy: '--beta', dotted: '--model.beta' },
};

const ckptDir = (job: TrainJob) => path.join(job.workDir, 'ckpt');

/** DeepSpeed writes `latest` (naming the tag) after a checkpoint is fully saved: only that one is complete. */
function findResumePoint(workDir: string): ResumePoint | undefined {
  const latest = path.join(workDir, 'ckpt', 'latest');
  if (!existsSync(latest)) return undefined;
  const tag = readFileSync(latest, 'utf8').trim();
  const m = /^global_step(\d+)$/.exec(tag);
  const dir = path.join(workDir, 'ckpt', tag);
  return m && existsSync(dir) ? { path: dir, step: Number(m[1]) } : undefined;
}

function plan(job: TrainJob, o: OpenRlhfOptions, resume?: ResumePoint): TrainStep[] {
  const f = (k: Key) => FLAGS[k][o.flags];
  const module = job.method === 'dpo' ? 'openrlhf.cli.train_dpo' : 'openrlhf.cli.train_sft';
  const args = [
    f('model'), job.base,
    f('out'), job.hfOutput,
    f('dataset'), job.dataFile,
    f('maxLen'), String(o.maxLength),
    f('applyTemplate'),
    ...(job.method === 'dpo'
      ? [f('promptKey'), 'prompt', f('chosenKey'), 'chosen', f('rejectedKey'), 'rejected', f('ref'), job.base, f('beta'), String(o.beta)]
      : [f('inputKey'), 'messages']),
    f('zero'), String(o.zeroStage),
    ...(o.flags === 'dotted' ? [f('dtype'), 'bf16'] : [f('dtype')]), // legacy --bf16 is a switch
    f('micro'), '1',
    f('batch'), String(o.batchSize * o.gradientAccumulation),
    f('epochs'), String(Math.max(1, Math.round(o.epochs))),
    ...opt(f('lr'), o.learningRate),
    // DeepSpeed states for resume: only written when save steps > 0; the load flag picks up `latest` if present.
    ...(o.saveSteps > 0 ? [f('ckptPath'), ckptDir(job), f('saveSteps'), String(o.saveSteps), f('load')] : []),
    ...(o.attnImplementation ? [o.flags === 'dotted' ? '--model.attn_implementation' : '--attn_implementation', o.attnImplementation] : []),
    ...o.extraArgs,
  ];
  void resume; // resuming is the trainer's own: same flags + the load flag
  return [{ name: 'train', argv: [...(o.launcher ?? ['deepspeed']), '--module', module, ...args] }];
}

// rank-0 tqdm bars: "Train step of epoch 0:  40%|####      | 4/10 [00:10<00:15, gpt_loss=1.23, lr=5e-06]"
const BAR = /Train step of epoch \d+:.*?\|\s*(\d+)\/\d+\s*\[[^\]]*?\b(?:gpt_loss|loss)=(-?[0-9.]+(?:e[-+]?\d+)?)/;

function parseLine(line: string): TrainerProgress {
  const bars = line.split('\r'); // tqdm redraws in place: the last frame is the newest
  for (let i = bars.length - 1; i >= 0; i--) {
    const m = BAR.exec(bars[i]);
    if (m) return { step: Number(m[1]), loss: Number(m[2]) };
  }
  return {};
}

export const openrlhfAdapter: TrainerAdapter<OpenRlhfOptions> = {
  kind: 'openrlhf',
  dataFormat: 'openrlhf',
  methods: ['sft', 'dpo'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) => [job.python, '-c', "import importlib.metadata as m; print('openrlhf', m.version('openrlhf'), 'deepspeed', m.version('deepspeed'))"],
};
