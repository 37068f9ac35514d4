// CollabLLM's `recipe:` section (composed by configs/schema.ts through the registry).
import { z } from 'zod';
import { positiveInt } from '../../../contracts/config-fields';
import { compat, recipeSection } from '../recipe-section';
import { COLLAB_TASK_KINDS, type CollabTaskKind } from './tasks';

/** The metrics a multiturn-aware reward can weigh (metrics.ts). */
export const COLLAB_METRICS = ['accuracy', 'interactivity', 'token_amount', 'bleu', 'pass_rate'] as const;
export type CollabMetric = (typeof COLLAB_METRICS)[number];

/** The metric that says whether a task of each kind succeeded (the paper's "task performance"). */
export const SUCCESS_METRIC = { math: 'accuracy', document: 'bleu', code: 'pass_rate', 'abg-coqa': 'accuracy' } as const satisfies Record<
  CollabTaskKind,
  CollabMetric
>;
export type SuccessMetric = (typeof SUCCESS_METRIC)[CollabTaskKind];

export const collabllmRecipeSchema = z
  .strictObject({
    name: z.literal('collabllm'),
    task: z.enum(COLLAB_TASK_KINDS).meta({
      description:
        "math: question answering (accuracy); document: document editing (BLEU); code: code generation (pass rate); abg-coqa: a question about a story, ambiguous or not (accuracy against the label; the seed's generalisation set).",
    }),
    compat: compat.meta({
      description: "fixed: our defaults; seed: the seeds' parse retries, judge length and token count (docs/fidelity.md, settings.ts).",
    }),
    // prompts: by key of prompts.ts COLLABLLM_PROMPTS.
    ...recipeSection,
    mode: z.enum(['collab', 'base', 'proactive']).default('collab').meta({
      description:
        'collab: the policy as trained (iteration 0 is the base model); base: the policy with no system prompt; proactive: the policy prompted to collaborate (the paper\'s "proactive base"). Only evaluation differs between them.',
    }),
    maxMessages: positiveInt.default(14).meta({ description: "Messages per conversation, both roles (the seed's max_total_turns)." }),
    candidates: z
      .number()
      .int()
      .min(2)
      .default(2)
      .meta({ description: "Candidate assistant turns per state while building data (the seed's default; its examples use 3)." }),
    futures: positiveInt.default(3).meta({ description: "Simulated futures per candidate (the seed's num_samples)." }),
    window: positiveInt.default(4).meta({ description: "A simulated future's length in messages (the seed's max_new_turns)." }),
    weights: z
      .partialRecord(z.enum(COLLAB_METRICS), z.number())
      .optional()
      .meta({ description: "Metric → weight of the multiturn-aware reward (negative allowed); default per task (the seed's examples)." }),
    aggregation: z.enum(['weighted-mean', 'clamped']).default('weighted-mean').meta({
      description:
        "weighted-mean: Σ weight × score per future, averaged over futures (the method as published); clamped: per metric mean × weight clamped to [−1, 1], summed (verl's CollabLLM reward manager).",
    }),
    temperature: z.number().min(0).max(2).default(0.8).meta({ description: "The assistant's sampling temperature." }),
    proact: z
      .strictObject({
        ratio: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .meta({ description: 'Share of the candidates asked through the proactive instruction.' }),
        parseRetries: z
          .number()
          .int()
          .min(0)
          .optional()
          .meta({ description: 'Re-asks after a reply without a readable `response`; default by `compat` (settings.ts).' }),
      })
      .prefault({})
      .meta({
        description:
          "While building data, the first ⌊candidates × ratio⌋ candidates of a state are asked through the proactive instruction (one request holding the conversation, a JSON reply whose `response` is the candidate), the others plainly: the seed's proact_prompt_ratio (collabllm/simulation.py). Futures and evaluation are never proactive.",
      }),
    user: z
      .strictObject({
        temperature: z.number().min(0).max(2).default(1).meta({ description: "The user simulator's sampling temperature." }),
        maxTokens: positiveInt.default(1024).meta({ description: "The user simulator's reply length." }),
        parseRetries: z
          .number()
          .int()
          .min(0)
          .optional()
          .meta({ description: "Re-asks when the simulator's reply is not the JSON it was asked for; default by `compat` (settings.ts)." }),
        goalHint: z.boolean().default(false).meta({
          description:
            "Append the task's ground truth to the simulator's goal as a hint (\"(Hint: …)\", as the seed's compute_mr_api notebook does once). Off by default: neither seed's data loop gives the simulator the answer, and a user who knows it can lead the assistant there, which inflates task success.",
        }),
      })
      .prefault({})
      .meta({ description: 'How the user simulator (the model role `user`) is sampled and read.' }),
    judge: z
      .strictObject({
        maxTokens: positiveInt
          .optional()
          .meta({ description: "The judges' reply length; default by `compat` (seed-settings.ts), as are the re-asks below." }),
        parseRetries: z
          .number()
          .int()
          .min(0)
          .optional()
          .meta({ description: 'Re-asks of the accuracy and interactivity judges after an unreadable reply.' }),
        extractRetries: z
          .number()
          .int()
          .min(0)
          .optional()
          .meta({ description: 'Re-asks of the extractor (the final document or code of a conversation).' }),
      })
      .prefault({})
      .meta({ description: 'How the judges and the extractor are asked.' }),
    data: z
      .strictObject({
        minGap: z
          .number()
          .min(0)
          .default(0.02)
          .meta({ description: "Preference pairs whose chosen and rejected rewards differ by less are dropped (the seed's minimum_gap)." }),
        sftFloor: z
          .strictObject({
            metric: z.enum(COLLAB_METRICS).meta({ description: 'The metric compared.' }),
            min: z.number().meta({ description: 'The least value kept.' }),
          })
          .optional()
          .meta({ description: "SFT keeps a conversation only if this metric of its last turn's best candidate reaches `sftFloor.min`." }),
      })
      .prefault({})
      .meta({ description: 'How preference pairs and SFT examples are kept.' }),
    sandbox: z
      .strictObject({
        timeoutSeconds: z.number().positive().default(10).meta({ description: "How long one run of the task's tests may take." }),
        slots: positiveInt.default(2).meta({ description: 'Sandboxes at once per scoring activity.' }),
      })
      .prefault({})
      .meta({ description: 'Where code tasks run their tests (activities/sandbox/).' }),
  })
  .meta({
    description:
      'CollabLLM: an assistant converses with a simulated user; candidate turns are rewarded by the futures they lead to (the multiturn-aware reward) and trained on as preference pairs or online RL.',
  });

export type CollabllmRecipeConfig = z.infer<typeof collabllmRecipeSchema>;

/** The seed's weights per task (its README examples): the task's success metric, interactivity for math, a token cost. */
export const DEFAULT_WEIGHTS: Record<CollabllmRecipeConfig['task'], Partial<Record<CollabMetric, number>>> = {
  math: { accuracy: 1, interactivity: 0.5, token_amount: -0.5 },
  document: { bleu: 1, token_amount: -0.1 },
  code: { pass_rate: 1, token_amount: -0.5 },
  // The seed ships no weights for Abg-CoQA (only its adaptor, examples/single_turn_ds/abg_coqa.py): math-hard's.
  'abg-coqa': { accuracy: 1, interactivity: 0.5, token_amount: -0.5 },
};

export const weightsOf = (cfg: CollabllmRecipeConfig) => cfg.weights ?? DEFAULT_WEIGHTS[cfg.task];
