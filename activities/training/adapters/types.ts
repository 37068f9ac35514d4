// What every trainer adapter (TRL, fairseq2, OpenRLHF, verl) tells the train stage. An adapter is pure: it builds
// argv lists, parses output lines and reads the trainer's own checkpoint layout; the train activity
// (../train-checkpoint.ts) runs the steps as subprocesses, heartbeats progress and records lineage.
import { z } from 'zod';
import { positiveInt } from '../../../contracts/config-fields';
import type { TrainingDataFormat } from '../../data/formats';
import type { TrainMethod } from '../../../contracts/train-methods';

export type { TrainMethod };

export interface TrainJob {
  method: TrainMethod;
  /** Hugging Face directory of the model being trained (the iteration's checkpoint). */
  base: string;
  /** Directory holding `train.jsonl` in the adapter's `dataFormat` (written by the train activity). */
  dataDir: string;
  /** `${dataDir}/train.jsonl` */
  dataFile: string;
  /** The trainer's own output dir (checkpoints, logs). Stable across retries of the stage, so a retry resumes. */
  workDir: string;
  /** Where the finished Hugging Face model must be once all steps ran; the next iteration serves it. */
  hfOutput: string;
  /** Python interpreter of the project's .venv (or trainer.python). */
  python: string;
  /** Iteration seed, for trainers that take one. */
  seed: number;
  /** grpo: the recipe's reward service the trainer's plug-ins call, and the recipe's rollout (its OnlineRl). */
  onlineRl?: OnlineRlRollout & { rewardUrl: string };
}

/** What a recipe's OnlineRl (activities/recipes/types.ts) declares for an online RL trainer's multi-turn rollouts. */
export interface OnlineRlRollout {
  /** A Python script (absolute path) run with these arguments, then `--agent-name NAME --interaction-name NAME
   *  --seed N --out-dir DIR IN.jsonl`: the `rl` rows → the trainer's rl_train.parquet and rl_validation.parquet, each
   *  row naming the agent loop and the interaction below. */
  converter: { script: string; args: string[] };
  /** The agent loop that plays the futures: the name the rows give it (agent_name) and its class (`_target_` of
   *  verl's agent-loop config; trainer.grpo.agentLoop replaces it). */
  agentLoop: { name: string; target: string };
  /** The name the rows' interaction_kwargs give the interaction (`name` in verl's interaction config). */
  interactionName: string;
}

/** Options common to every adapter (the trainer section of the config); adapters read what applies to them. The
 *  config schema (configs/schema.ts) spreads this shape into every trainer kind, so the type is inferred once. */
export const commonTrainOptionsSchema = z.object({
  learningRate: z.number().positive().optional().meta({
    description: "The optimizer's learning rate; default the trainer's own (verl grpo: train_rl_collabllm.sh's; ppo: the seed's).",
  }),
  maxSteps: positiveInt
    .optional()
    .meta({ description: 'Stop after this many optimizer steps (CPU runs, smoke tests); otherwise `epochs`.' }),
  epochs: z.number().positive().default(1).meta({ description: 'Passes over the training data (when maxSteps is not set).' }),
  batchSize: positiveInt.default(4).meta({ description: 'Examples per device per micro-batch.' }),
  gradientAccumulation: positiveInt.default(1).meta({ description: 'Micro-batches accumulated per optimizer step.' }),
  maxLength: positiveInt
    .default(2048)
    .meta({ description: 'The longest example in tokens (prompt + target); longer ones are cut or dropped, as the trainer does.' }),
  saveSteps: z
    .number()
    .int()
    .min(0)
    .default(50)
    .meta({ description: 'Save a resumable checkpoint every N optimizer steps (0: only at the end).' }),
  beta: z.number().positive().default(0.1).meta({ description: 'DPO beta.' }),
  extraArgs: z
    .array(z.string())
    .default([])
    .meta({ description: "Appended verbatim to the trainer's argv (the escape hatch for every other flag)." }),
  launcher: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .meta({ description: 'Prefix for the training command, e.g. ["deepspeed","--num_gpus","8"] or ["torchrun","--nproc_per_node=8"].' }),
});
export type CommonTrainOptions = z.infer<typeof commonTrainOptionsSchema>;

export interface TrainStep {
  /** 'prepare' (data conversion), 'train', 'export' (to a Hugging Face directory), … — shown in logs. */
  name: string;
  argv: string[];
  env?: Record<string, string>;
  /** The exit code with which the step reports bad input (rows, options): retrying cannot fix it. */
  badInputExitCode?: number;
  /** Files the step reads that the plan itself writes (path → text), written before the step runs. */
  files?: Record<string, string>;
}

export interface TrainerProgress {
  step?: number;
  loss?: number;
  /** A checkpoint the trainer just announced (informational; resume uses findResumePoint). */
  checkpoint?: string;
}

export interface ResumePoint {
  /** Complete checkpoint directory inside workDir. */
  path: string;
  step: number;
}

/** One trainer kind's tool; its kind is its key in the adapter map (./index.ts). */
export interface TrainerAdapter<O extends CommonTrainOptions = CommonTrainOptions> {
  /** The JSONL row format this tool reads (data/formats.ts): what the data stage writes for it. */
  dataFormat: TrainingDataFormat;
  methods: readonly TrainMethod[];
  /** Latest COMPLETE checkpoint in workDir: ignores `*.tmp` and half-written directories. */
  findResumePoint(workDir: string): ResumePoint | undefined;
  /** Subprocesses to run in order. `resume` is set when findResumePoint found one. */
  plan(job: TrainJob, options: O, resume?: ResumePoint): TrainStep[];
  /** One line of the trainer's stdout/stderr → progress (empty object when the line says nothing). */
  parseLine(line: string): TrainerProgress;
  /** argv printing the tool's version on stdout (recorded in the checkpoint's lineage). */
  versionCommand(job: TrainJob): string[];
}
