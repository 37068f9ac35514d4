// TRL (SFT, DPO, online DPO) through ./trl_train.py rather than the `trl` CLI, whose --resume_from_checkpoint is
// silently ignored: the wrapper resumes, validates the rows and prints `collab-loop-*` JSON lines we parse here.
// One step: TRL's final model already is a Hugging Face directory (the wrapper writes it atomically to hfOutput).
// online_dpo (TRL's experimental OnlineDPOTrainer, as microsoft/CollabLLM's scripts train online DPO): a prepare step
// first — the recipe's converter writes the prompts (./online-prepare.ts) — and the train step names the recipe's
// reward service, which ./trl_online_dpo.py asks for each completion's multiturn-aware reward.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { positiveInt } from '../../../contracts/config-fields';
import { onlinePrepareStep } from './online-prepare';
import type { CommonTrainOptions, ResumePoint, TrainerAdapter, TrainerProgress, TrainJob, TrainStep } from './types';
import { packageVersionsCommand } from './package-versions';

const SCRIPT = fileURLToPath(new URL('./trl_train.py', import.meta.url));

/** Offline (hub lookups must fail fast on air-gapped machines), unbuffered (progress lines arrive as they happen). */
export const TRL_ENV: Record<string, string> = {
  HF_HUB_OFFLINE: '1',
  HF_DATASETS_OFFLINE: '1',
  TOKENIZERS_PARALLELISM: 'false',
  PYTHONUNBUFFERED: '1',
};

// Defaults: microsoft/CollabLLM's online DPO (futures per completion), with the future shape of verl-recipe's
// collabllm/train_rl_collabllm.sh (user, assistant, user).
export const trlOnlineDpoOptionsSchema = z.strictObject({
  futures: positiveInt.default(3).meta({ description: "Futures played after each completion to score it (the seed's)." }),
  maxUserTurns: positiveInt.default(2).meta({ description: "User turns of a future (train_rl_collabllm.sh's)." }),
  maxAssistantTurns: positiveInt
    .default(3)
    .meta({ description: "Assistant turns of a future, counting the completion (train_rl_collabllm.sh's)." }),
  maxNewTokens: positiveInt
    .default(512)
    .meta({ description: 'Tokens of each completion and of each assistant turn in the futures (OnlineDPOConfig.max_new_tokens).' }),
  temperature: z
    .number()
    .gt(0)
    .max(2)
    .default(1)
    .meta({ description: 'Sampling temperature of the completions and of the policy in the futures.' }),
});
export const trlOptionsSchema = z.strictObject({
  onlineDpo: trlOnlineDpoOptionsSchema.prefault({}).meta({
    description:
      "method online_dpo: TRL's OnlineDPOTrainer; each completion's reward comes from futures played against the recipe's reward service.",
  }),
});
/** The config always carries onlineDpo (its defaults); callers planning sft/dpo may leave it out. */
export type TrlOptions = CommonTrainOptions & Partial<z.infer<typeof trlOptionsSchema>>;

const CHECKPOINT_DIR = /^checkpoint-(\d+)$/;

/** Highest `checkpoint-N` whose trainer_state.json is readable: transformers writes that file last. */
function findResumePoint(workDir: string): ResumePoint | undefined {
  if (!existsSync(workDir)) return undefined;
  let best: ResumePoint | undefined;
  for (const name of readdirSync(workDir)) {
    const m = CHECKPOINT_DIR.exec(name); // also rules out `checkpoint-6.tmp` and other partial names
    if (!m) continue;
    const step = Number(m[1]);
    const dir = path.join(workDir, name);
    if (best && step <= best.step) continue;
    if (!statSync(dir).isDirectory() || !completeState(path.join(dir, 'trainer_state.json'))) continue;
    best = { path: dir, step };
  }
  return best;
}

function completeState(file: string): boolean {
  try {
    return typeof JSON.parse(readFileSync(file, 'utf8')).global_step === 'number';
  } catch {
    return false; // missing, or cut short by a kill mid-write
  }
}

/**
 * The launcher (accelerate launch, torchrun, deepspeed) takes the script path and runs it with its own Python, so
 * `job.python` is not repeated after it; give the venv's launcher (e.g. `.venv/bin/accelerate`) when PATH has another.
 */
function plan(job: TrainJob, o: TrlOptions, resume?: ResumePoint): TrainStep[] {
  const args = [
    '--method',
    job.method,
    '--model',
    job.base,
    '--data',
    job.dataDir,
    '--output-dir',
    job.workDir,
    '--hf-output',
    job.hfOutput,
    '--epochs',
    String(o.epochs),
    '--batch-size',
    String(o.batchSize),
    '--gradient-accumulation',
    String(o.gradientAccumulation),
    '--max-length',
    String(o.maxLength),
    '--save-steps',
    String(o.saveSteps),
    '--seed',
    String(job.seed),
  ];
  if (o.maxSteps !== undefined) args.push('--max-steps', String(o.maxSteps));
  if (o.learningRate !== undefined) args.push('--learning-rate', String(o.learningRate));
  if (job.method === 'dpo' || job.method === 'online_dpo') args.push('--beta', String(o.beta));
  if (job.method === 'online_dpo') args.push(...onlineDpoArgs(job, o));
  if (resume) args.push('--resume-from', resume.path);
  const command = o.launcher?.length ? [...o.launcher, SCRIPT] : [job.python, SCRIPT];
  // extraArgs last: the wrapper hands unknown `--field value` pairs to SFTConfig/DPOConfig, over its own defaults.
  // trl_train.py exits 2 on bad rows or options (one line naming them); a launcher may report it as its own code.
  return [
    ...(job.method === 'online_dpo' ? [onlinePrepareStep(job, TRL_ENV)] : []),
    {
      name: 'train',
      argv: [...command, ...args, ...o.extraArgs],
      env: { ...TRL_ENV },
      ...(o.launcher?.length ? {} : { badInputExitCode: 2 }),
    },
  ];
}

function onlineDpoArgs(job: TrainJob, o: TrlOptions): string[] {
  if (!job.onlineRl) throw new Error('trl online_dpo: no reward service (the train stage starts it before planning)');
  const d = o.onlineDpo ?? trlOnlineDpoOptionsSchema.parse({});
  return [
    ...['--reward-url', job.onlineRl.rewardUrl, '--futures', String(d.futures)],
    ...['--max-user-turns', String(d.maxUserTurns), '--max-assistant-turns', String(d.maxAssistantTurns)],
    ...['--max-new-tokens', String(d.maxNewTokens), '--temperature', String(d.temperature)],
  ];
}

const EVENT = /^collab-loop-(progress|checkpoint|resumed|done) (\{.*\})\s*$/;
// transformers' PrinterCallback: `{'loss': '5.813', 'grad_norm': '2.588', …}` (values are strings in TRL 1.x, no step)
const RAW_LOSS = /^\{(?:.*?,\s*)?'loss':\s*'?(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)'?\s*[,}]/;

const finite = (v: unknown): number | undefined => {
  const n = typeof v === 'string' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

function parseLine(line: string): TrainerProgress {
  const e = EVENT.exec(line.trim());
  if (e) {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(e[2]);
    } catch {
      return {};
    }
    const out: TrainerProgress = {};
    const step = finite(body.step);
    const loss = finite(body.loss);
    if (step !== undefined) out.step = step;
    if (loss !== undefined && e[1] !== 'checkpoint') out.loss = loss;
    if (e[1] === 'checkpoint' && typeof body.path === 'string') out.checkpoint = body.path;
    return out;
  }
  const raw = RAW_LOSS.exec(line.trim());
  const loss = raw ? finite(raw[1]) : undefined;
  return loss === undefined ? {} : { loss };
}

export const trlAdapter: TrainerAdapter<TrlOptions> = {
  dataFormat: 'trl',
  methods: ['sft', 'dpo', 'online_dpo'],
  findResumePoint,
  plan,
  parseLine,
  versionCommand: (job) => packageVersionsCommand(job.python, ['trl', 'transformers', 'torch']),
};
