// fairseq2 0.4.x (brief B.1): the only fairseq2 line with preference finetuning; its packaged `fairseq2 lm …`
// recipes and console command were removed in 0.5 (later versions run `python -m recipes.lm.sft` from a source
// checkout and have no DPO), so this adapter targets 0.4 and says so in the lineage (versionCommand).
//   train:  fairseq2 lm instruction_finetune|preference_finetune WORK --no-sweep-dir --preset P --config k=v …
//           data: dataset.path = the data dir (its *.jsonl = split "default"); rows {src,tgt} / {src,tgt_chosen,
//           tgt_rejected} with src pre-rendered in the Llama-3.1 template (formats.ts).
//   model:  iteration 0 uses the asset-card name `model` (e.g. llama3_1_8b_instruct); later iterations continue
//           from the previous run's weights via common.assets.checkpoint_dir=<prev>/checkpoints
//           model.name=last_checkpoint — recorded by the export step in fairseq2-run.json.
//   resume: rerun the same command on the same WORK dir (the trainer restores its last checkpoint); complete
//           checkpoints are checkpoints/step_N (step_N.tmp is one being written).
//   export: 0.4 has no Hugging Face weight exporter: `fairseq2 llama write_hf_config` writes config.json and
//           scripts/python/fairseq2_export.py links the last step's consolidated weights and the base tokenizer
//           beside it (vLLM loads fairseq2 Llama checkpoints with an HF tokenizer, per fairseq2's docs).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { latestCompleteDir } from './checkpoint-dirs';

export const fairseq2OptionsSchema = z.strictObject({
  /** Asset-card name of the base model family (iteration 0), e.g. llama3_1_8b_instruct. */
  model: z.string().min(1).default('llama3_1_8b_instruct'),
  preset: z.string().optional(),
  /** `fairseq2` console command (0.4.x). */
  executable: z.string().default('fairseq2'),
  /** FAIRSEQ2_USER_ASSET_DIR: where the user's asset cards live. */
  assetDir: z.string().optional(),
});
export type Fairseq2Options = CommonTrainOptions & z.infer<typeof fairseq2OptionsSchema>;

export const FAIRSEQ2_RUN_FILE = 'fairseq2-run.json';

function findResumePoint(workDir: string): ResumePoint | undefined {
  return latestCompleteDir(path.join(workDir, 'checkpoints'), /^step_(\d+)$/, () => true);
}

/** A checkpoint this adapter exported knows where its fairseq2 checkpoints are; anything else is an asset name. */
function modelOverrides(job: TrainJob, o: Fairseq2Options): string[] {
  const run = path.join(job.base, FAIRSEQ2_RUN_FILE);
  if (existsSync(run)) {
    const { checkpointDir } = JSON.parse(readFileSync(run, 'utf8')) as { checkpointDir: string };
    return [`common.assets.checkpoint_dir=${checkpointDir}`, 'model.name=last_checkpoint'];
  }
  return [`model.name=${o.model}`];
}

function plan(job: TrainJob, o: Fairseq2Options): TrainStep[] {
  const recipe = job.method === 'dpo' ? 'preference_finetune' : 'instruction_finetune';
  const config = [
    `dataset.path=${job.dataDir}`,
    `dataset.max_seq_len=${o.maxLength}`,
    `dataset.max_num_tokens=${o.maxLength * o.batchSize}`,
    `dataset.source_encode_mode=as_is`, // src already carries the chat template's headers
    ...modelOverrides(job, o),
    ...(o.maxSteps !== undefined ? [`regime.num_steps=${o.maxSteps}`] : [`regime.num_data_epochs=${o.epochs}`]),
    ...(o.saveSteps > 0 ? [`regime.checkpoint_every_n_steps=${o.saveSteps}`] : []),
    ...(o.learningRate !== undefined ? [`optimizer.config.lr=${o.learningRate}`] : []),
    ...(o.gradientAccumulation > 1 ? [`trainer.gradient_accumulation=${o.gradientAccumulation}`] : []),
    `common.seed=${job.seed}`,
    ...(job.method === 'dpo' ? [`criterion.config.beta=${o.beta}`] : []),
  ];
  const env = o.assetDir ? { FAIRSEQ2_USER_ASSET_DIR: o.assetDir } : undefined;
  const train = [...(o.launcher ?? []), o.executable, 'lm', recipe, job.workDir, '--no-sweep-dir',
    ...(o.preset ? ['--preset', o.preset] : []), '--config', ...config, ...o.extraArgs];
  return [
    { name: 'train', argv: train, env },
    { name: 'export-config', argv: [o.executable, 'llama', 'write_hf_config', o.model, job.hfOutput], env },
    { name: 'export', argv: [job.python, path.join(job.project, 'scripts', 'python', 'fairseq2_export.py'),
      '--checkpoint-dir', path.join(job.workDir, 'checkpoints'), '--base', job.base, '--out', job.hfOutput] },
  ];
}

const METRICS = /Train Metrics \(step (\d+)\)\s*-\s*Loss:\s*(-?[0-9.]+(?:e[-+]?\d+)?)/i;
const RESUMED = /Resuming from step (\d+)/i;
const SAVED = /Saving checkpoint (?:at|of) step (\d+)/i;

function parseLine(line: string): TrainerProgress {
  const m = METRICS.exec(line);
  if (m) return { step: Number(m[1]), loss: Number(m[2]) };
  const r = RESUMED.exec(line);
  if (r) return { step: Number(r[1]) };
  const s = SAVED.exec(line);
  if (s) return { step: Number(s[1]), checkpoint: `step_${s[1]}` };
  return {};
}

export const fairseq2Adapter: TrainerAdapter<Fairseq2Options> = {
  kind: 'fairseq2',
  dataFormat: 'fairseq2',
  methods: ['sft', 'dpo'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) => [job.python, '-c', "import importlib.metadata as m; print('fairseq2', m.version('fairseq2'))"],
};
