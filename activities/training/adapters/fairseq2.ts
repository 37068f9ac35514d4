// fairseq2 0.4.x (fairseq2 0.4 docs). Only 0.4 has preference finetuning: v0.5 removed the packaged `fairseq2 lm …` recipes
// and the console command (later recipes run from a source checkout and are SFT-only), so `release` is '0.4'.
// Run for real with 0.4.6 on CPU by tests/engines/fairseq2-cpu.test.ts (requirements-fairseq2.txt).
//   prepare: ./fairseq2_prepare.py checks the rows (0.4 itself fails deep in its pipeline, naming no file or line),
//            then writes an asset card for the iteration's base (a Hugging Face Llama directory), because 0.4 finds the
//            tokenizer and the DPO reference model by card name only (model.name serves the policy too). Its llama
//            loader reads HF safetensors itself (it detects `lm_head.weight` and redoes q/k for its rotary layout),
//            so untied-embedding Llamas (3.1 8B/70B) load; tied ones (3.2 1B/3B: no lm_head.weight) do not.
//   train:   <trainer.python's dir>/fairseq2 lm instruction_finetune|preference_finetune WORK --no-sweep-dir --config k=v …
//            (`--no-sweep-dir`: checkpoints land in WORK/checkpoints, not in a config-hash sub-directory).
//   export:  0.4 has no Hugging Face weight exporter (`hg_export` / `regime.export_hugging_face` arrived in 0.5,
//            without DPO), so ./fairseq2_export.py inverts that conversion for the last complete
//            step and writes safetensors + the base's config/tokenizer files to hfOutput.
// Resume: rerun the same command on the same WORK; the trainer restores the highest checkpoints/step_N (written as
// step_N.tmp, renamed when complete). 0.4.6 cannot resume from a step that ends a data epoch: the restored trainer's
// first read ends the epoch with no batch read in this process, which it takes for an empty dataset ("End of data
// reached", fairseq2/recipes/trainer.py:806), and stops short of num_steps; the stage then reports those fewer steps.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { packageVersionsCommand } from './package-versions';
import { latestCompleteDir } from './checkpoint-dirs';
import { scriptBeside } from '../../subprocess/venv';

export const fairseq2OptionsSchema = z.strictObject({
  release: z
    .literal('0.4')
    .default('0.4')
    .meta({ description: 'The fairseq2 line: only 0.4 has preference finetuning (0.5 removed the packaged `fairseq2 lm` recipes).' }),
  arch: z
    .string()
    .min(1)
    .default('llama3_1_8b')
    .meta({ description: 'fairseq2 llama architecture of the base, e.g. llama3_1_8b, llama3_1_70b (0.4 builds the model from it).' }),
  familyCard: z
    .string()
    .min(1)
    .default('llama3_instruct')
    .meta({ description: "Built-in card the base's card extends: family, tiktoken tokenizer, EOT as EOS (`llama3` for base models)." }),
  tokenizer: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Llama-3 tiktoken file; default `<base>/original/tokenizer.model` (the export copies it along).' }),
  preset: z.string().min(1).optional().meta({ description: 'Recipe preset (0.4 default: llama3_1_instruct).' }),
  modelConfig: z.record(z.string(), z.unknown()).optional().meta({
    description:
      "LLaMAConfig fields set over the arch's (model_dim, num_layers, vocab_info, ffn_inner_dim, rope_theta, …), for a base no built-in arch describes, e.g. a tiny test model: the card's `model_config`, which fairseq2 0.4 merges over `model_arch` (fairseq2/models/_handler.py load_config; `_set_` replaces the listed values).",
  }),
});
export type Fairseq2Options = CommonTrainOptions & z.infer<typeof fairseq2OptionsSchema>;

/** Card name of the iteration's base model (also the DPO reference model). */
export const FAIRSEQ2_BASE_CARD = 'collab_loop_base';

const SCRIPT = fileURLToPath(new URL('./fairseq2_export.py', import.meta.url));
const PREPARE = fileURLToPath(new URL('./fairseq2_prepare.py', import.meta.url));

export const FAIRSEQ2_ENV: Record<string, string> = {
  HF_HUB_OFFLINE: '1',
  PYTHONUNBUFFERED: '1',
  // fairseq2 logs through rich, which wraps at 80 columns when not on a terminal: "… - NLL Loss: 1.2" would split.
  COLUMNS: '400',
};

/** A number as YAML 1.1 reads it as a float: `1e-07` would be a string to PyYAML, `1.0e-7` is not. */
export function yamlFloat(n: number): string {
  const s = String(n);
  if (/^-?\d+$/.test(s)) return `${s}.0`;
  return /e/.test(s) && !/\./.test(s) ? s.replace('e', '.0e') : s;
}

/** A path as a YAML scalar: plain when safe, else double-quoted (JSON strings are YAML) — `#`, `: ` would break it. */
export const yamlString = (s: string) => (/^[\w/.+@~-]+$/.test(s) ? s : JSON.stringify(s));

const stepDirs = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/** Highest committed checkpoints/step_N (never step_N.tmp) that holds the model (model.pt, or model.0.pt with TP). */
function findResumePoint(workDir: string): ResumePoint | undefined {
  return latestCompleteDir(path.join(workDir, 'checkpoints'), /^step_(\d+)$/, (d) =>
    stepDirs(d).some((f) => /^model(\.\d+)?\.pt$/.test(f)),
  );
}

function plan(job: TrainJob, o: Fairseq2Options): TrainStep[] {
  const assets = path.join(job.workDir, 'assets');
  const card = {
    name: FAIRSEQ2_BASE_CARD,
    base: o.familyCard,
    model_arch: o.arch,
    checkpoint: job.base,
    tokenizer: o.tokenizer ?? path.join(job.base, 'original', 'tokenizer.model'),
    ...(o.modelConfig ? { model_config: { _set_: o.modelConfig } } : {}),
  };
  const config = [
    `common.assets.extra_path=${yamlString(assets)}`,
    `common.seed=${job.seed}`,
    `model.name=${FAIRSEQ2_BASE_CARD}`,
    `dataset.path=${yamlString(job.dataDir)}`, // a dir without sub-dirs: its *.jsonl are split "default"
    'dataset.source_encode_mode=as_is', // src is pre-rendered with the Llama-3.1 template, BOS included
    `dataset.max_seq_len=${o.maxLength}`, // longer examples are dropped
    `dataset.batch_size=${o.batchSize}`,
    `dataset.max_num_tokens=${o.maxLength * o.batchSize}`,
    `trainer.gradient_accumulation=${o.gradientAccumulation}`,
    // The recipes default to num_steps=5000: null it when training by epochs, or it silently caps the run.
    `regime.num_steps=${o.maxSteps ?? 'null'}`,
    `regime.num_data_epochs=${o.maxSteps !== undefined ? 'null' : Math.ceil(o.epochs)}`,
    `regime.checkpoint_every_n_steps=${o.saveSteps > 0 ? o.saveSteps : 'null'}`, // the last step is always saved
    'regime.publish_metrics_every_n_steps=1',
    ...(o.learningRate !== undefined ? [`optimizer.config.lr=${yamlFloat(o.learningRate)}`] : []),
    ...(job.method === 'dpo'
      ? ['criterion.name=dpo', `criterion.config.reference_model.name=${FAIRSEQ2_BASE_CARD}`, `criterion.config.beta=${yamlFloat(o.beta)}`]
      : []),
  ];
  const recipe = job.method === 'dpo' ? 'preference_finetune' : 'instruction_finetune';
  // A launcher must exec the console script itself, e.g. ["torchrun", "--standalone", "--nproc-per-node", "8", "--no-python"].
  const train = [
    ...(o.launcher ?? []),
    // Beside trainer.python even after a launcher (`torchrun … --no-python fairseq2`), which resolves only argv[0].
    scriptBeside(job.python, 'fairseq2'),
    'lm',
    recipe,
    job.workDir,
    '--no-sweep-dir',
    ...(o.preset ? ['--preset', o.preset] : []),
    '--config',
    ...config,
    ...o.extraArgs,
  ];
  return [
    {
      name: 'prepare',
      argv: [
        job.python,
        PREPARE,
        '--card',
        path.join(assets, `${FAIRSEQ2_BASE_CARD}.yaml`),
        '--card-json',
        JSON.stringify(card),
        '--data-dir',
        job.dataDir,
        '--method',
        job.method,
      ],
      env: { ...FAIRSEQ2_ENV },
      badInputExitCode: 2,
    },
    { name: 'train', argv: train, env: { ...FAIRSEQ2_ENV } },
    {
      name: 'export',
      argv: [job.python, SCRIPT, '--checkpoint-dir', path.join(job.workDir, 'checkpoints'), '--base', job.base, '--out', job.hfOutput],
      env: { ...FAIRSEQ2_ENV },
    },
  ];
}

const NUM = String.raw`(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|-?inf)`;
// 0.4: "Train Metrics (step 10) - NLL Loss: 1.2 | …" (SFT) or "DPO Loss: 0.69 | … | NLL Loss: …"; ≥0.5 "Loss: …".
// Metrics are sorted by priority, so the first "… Loss:" is the objective.
const METRICS = /\bTrain Metrics \(step (\d+)\) - (.*)$/;
const FIRST_LOSS = new RegExp(String.raw`(?:^|\|\s*)(?:[A-Za-z]+\s+)?Loss:\s*${NUM}`);
const RESTORED = /\bRestoring training from (?:the last checkpoint at )?step (\d+)|\bResuming from step (\d+)/;
const SAVING = /\bSaving checkpoint after step (\d+)\b/; // 0.4 (its "Checkpoint complete." names no step)
const SAVED = /\bCheckpoint at step (\d+) saved\b/; // ≥ 0.5
const DONE = /\bTraining complete in [\d,]+ seconds after (\d+) step/;

function parseLine(line: string): TrainerProgress {
  const m = METRICS.exec(line);
  if (m) {
    const loss = Number(FIRST_LOSS.exec(m[2])?.[1]);
    return Number.isFinite(loss) ? { step: Number(m[1]), loss } : { step: Number(m[1]) };
  }
  const r = RESTORED.exec(line);
  if (r) return { step: Number(r[1] ?? r[2]) };
  const s = SAVING.exec(line) ?? DONE.exec(line);
  if (s) return { step: Number(s[1]) };
  const d = SAVED.exec(line);
  if (d) return { step: Number(d[1]), checkpoint: path.join('checkpoints', `step_${d[1]}`) }; // relative to workDir
  return {};
}

export const fairseq2Adapter: TrainerAdapter<Fairseq2Options> = {
  dataFormat: 'fairseq2',
  methods: ['sft', 'dpo'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) => packageVersionsCommand(job.python, ['fairseq2', 'fairseq2n', 'torch']),
};
