// Building blocks of config sections, shared by the sections that recipes, trainers and trackers declare where they
// live (configs/schema.ts composes them). Secrets stay in the worker's environment: fields name the variable.
import { z } from 'zod';

export const positiveInt = z.number().int().positive();

/** What a path field names: a file the run reads, or a checkpoint directory (a local path, or a `scheme://` URI of
 *  the run's store that the deploy and train stages fetch: activities/storage/checkpoints.ts localCheckpoint). */
export interface LocalPathMeta {
  kind: 'file' | 'checkpoint';
}

/** Every path field, declared where it lives; configs/path-check.ts walks the schema and checks each one exists
 *  before a run starts, naming the field (zod registries: https://zod.dev/metadata). */
export const localPaths = z.registry<LocalPathMeta>();

/** A path field (relative to the config file), checked to exist before a run starts. */
export const existingPath = (kind: LocalPathMeta['kind']) => z.string().min(1).register(localPaths, { kind });

export const envVarName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the NAME of an environment variable (the key itself never goes in a config)');

/** The APIs an external endpoint can speak (activities/llm/scoring-api.ts for the two scoring ones). */
export const ENDPOINT_APIS = ['chat', 'reward', 'score'] as const;

export const STRUCTURED_OUTPUTS = ['parse', 'json_schema'] as const;
export const structuredOutputsSchema = z.enum(STRUCTURED_OUTPUTS).optional().meta({
  description:
    "How the callers that need a JSON reply (judges, user simulators, extractors) get one from the endpoint. parse (when absent): ask in the prompt, parse the reply by hand and re-ask when it cannot be read (any server). json_schema: send `response_format: {type: json_schema}` built from the caller's zod schema (OpenAI structured outputs; vLLM and SGLang guided decoding) and validate the reply with the same schema.",
});

/** An endpoint that the loop does not deploy itself. */
export const externalEndpointSchema = z
  .strictObject({
    baseUrl: z
      .url({ message: 'must be a URL such as http://127.0.0.1:8000/v1' })
      .meta({ description: 'The OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1.' }),
    model: z
      .string()
      .min(1)
      .meta({ description: "The model's name on the server; also its identity in the request cache (a scoring service ignores it)." }),
    apiKeyEnv: envVarName
      .optional()
      .meta({ description: 'Environment variable (on every worker) holding the API key; the key itself never goes in a config.' }),
    maxConcurrency: positiveInt.default(32).meta({
      description: 'Requests in flight to this endpoint at once: per worker process, or across all of them with llm.sharedLimits.',
    }),
    tokensPerMinute: positiveInt.optional().meta({
      description:
        'Tokens (prompt + completion) admitted per sliding minute: per worker process, or across all of them with llm.sharedLimits (activities/llm/limiter.ts).',
    }),
    api: z.enum(ENDPOINT_APIS).default('chat').meta({
      description:
        "How the endpoint is asked (a reward role may be any of them): chat — OpenAI chat completions at baseUrl (an LLM, or an LLM judge); reward — a reward model served by vLLM's pooling runner (`vllm serve <rm> --runner pooling`, usually detected by itself): POST /pooling at the server root (baseUrl without its /v1) with the conversation, its scalar read from data[0].data; score — a plain HTTP scoring service (e.g. a COMET-KIWI FastAPI service): POST baseUrl+path with {inputs: {batch_size, workers, data: [{src, mt}]}}, answered {scores: [float]}.",
    }),
    path: z
      .string()
      .startsWith('/', { message: 'must start with "/", e.g. /predict/' })
      .optional()
      .meta({ description: 'Only for api score: the path of the scoring route under baseUrl (default /predict/).' }),
    structuredOutputs: structuredOutputsSchema,
    price: z
      .strictObject({
        input: z.number().min(0).meta({ description: 'US dollars per million prompt tokens.' }),
        output: z.number().min(0).meta({ description: 'US dollars per million completion tokens.' }),
      })
      .optional()
      .meta({ description: "What the endpoint charges, in US dollars per million tokens, for the run's `budget.usd` (absent: free)." }),
  })
  .refine((e) => e.path === undefined || e.api === 'score', {
    path: ['path'],
    message: 'only an endpoint with api: score has a path (chat and reward endpoints use their standard routes)',
  });
export type ExternalEndpoint = z.infer<typeof externalEndpointSchema>;

export const promptsFile = existingPath('file').optional().meta({
  description:
    "A YAML or JSON file of prompt texts by key (the recipe's prompts.ts catalog), e.g. the seed's own: keys it leaves out keep the project's texts (activities/recipes/prompt-file.ts; docs: README \"Prompt texts\").",
});

/** A field that moved to the `models:` section (model roles): naming it is an error that says where it went. */
export const movedToModels = (role: string) =>
  z
    .undefined({
      error: `moved to the models section: write it as models: { ${role}: { kind: external, endpoint: {...} } } (or kind: frozen / trained)`,
    })
    .optional()
    // deprecated: the configuration reference (configs/config-doc.ts) leaves the field out.
    .meta({ deprecated: true, description: `Moved to models.${role}.` });

/** A host class or GPU type (contracts/placement.ts): part of a task queue's name, `collab-loop-gpu-<class>`. */
export const gpuClass = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, "-" and "_" (e.g. a100, h100-80g)')
  .optional();

/** How one model role of a recipe is played (the `models:` section, keyed by role). */
const roleGpuClass = gpuClass.meta({
  description:
    "Pins the role's trainer to the gpu workers started with `--gpu-class <class>` (and its server, when it is the one class named: contracts/placement.ts).",
});
export const modelRoleSchema = z.discriminatedUnion('kind', [
  z
    .strictObject({
      kind: z.literal('trained'),
      from: existingPath('checkpoint').optional().meta({ description: 'The checkpoint its chain starts from; default baseCheckpoint.' }),
      gpuClass: roleGpuClass,
    })
    .meta({ description: 'Served by the loop from its own checkpoint chain and trained every iteration on its own data.' }),
  z
    .strictObject({
      kind: z.literal('frozen'),
      checkpoint: existingPath('checkpoint').optional().meta({ description: 'The checkpoint it is served from; default baseCheckpoint.' }),
      gpuClass: roleGpuClass,
    })
    .meta({ description: 'Served by the loop from a fixed checkpoint, never trained.' }),
  z
    .strictObject({
      kind: z.literal('external'),
      endpoint: externalEndpointSchema.meta({ description: 'The endpoint that plays the role.' }),
    })
    .meta({ description: 'An endpoint the loop does not manage (a reward role may name a scoring API).' }),
]);
export type ModelRole = z.infer<typeof modelRoleSchema>;
export type RoleKind = ModelRole['kind'];

/** How two page screenshots are compared (ColBench html: the final render with the reference's). */
export const similarityMeasureSchema = z.discriminatedUnion(
  'kind',
  [
    z
      .strictObject({ kind: z.literal('weight-free') })
      .meta({ description: 'Layout and colour, no model (activities/render/image-similarity.ts).' }),
    z
      .strictObject({
        kind: z.literal('clip'),
        model: z
          .string({ error: 'must name a local CLIP checkpoint directory, e.g. models/clip-vit-base-patch32' })
          .min(1)
          .meta({ description: 'The local CLIP checkpoint directory, e.g. models/clip-vit-base-patch32.' }),
      })
      .meta({ description: "ColBench's own measure: the cosine of CLIP image embeddings (activities/render/clip-similarity.ts)." }),
  ],
  { error: 'must be {kind: weight-free} or {kind: clip, model: <CLIP checkpoint directory>}' },
);
export type SimilarityMeasure = z.infer<typeof similarityMeasureSchema>;
