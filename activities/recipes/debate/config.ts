// Debate's `recipe:` section (composed by configs/schema.ts through the registry).
import { z } from 'zod';
import { envVarName, movedToModels, positiveInt } from '../../../contracts/config-fields';
import { compat, recipeSection, topP } from '../recipe-section';
import { DEBATE_DATASETS } from './tasks';

export const debateRecipeSchema = z
  .strictObject({
    name: z.literal('debate'),
    dataset: z.enum(DEBATE_DATASETS).meta({
      description:
        'math: MATH (\\boxed{} answers); gsm8k: grade-school word problems (numbers); arithmetic: a+b*c+d-e*f (numbers, arithmetic.ts); mmlu: multiple choice (letters).',
    }),
    // prompts: by key of prompts.ts DEBATE_PROMPTS.
    ...recipeSection,
    topP: topP.default(0.9),
    maxTokens: positiveInt.default(2048).meta({ description: "An agent's reply length." }),
    mode: z.enum(['debate', 'single', 'majority', 'majority_ft', 'star']).default('debate').meta({
      description:
        "debate: N agents × R rounds (the method); single: one agent, one answer (the paper's Base); majority: the vote of N independent answers (the paper's Majority). Untrained debate is `debate` at iteration 0. The paper's single-model finetuning baselines: majority_ft — one model (`generator_0`) answers N times, the vote is the answer, and it trains on its answers that agree with the vote (no gold); star — the same N answers, trained on those that match the gold answer (STaR's filter, without its rationalisation step).",
    }),
    agents: positiveInt.default(3).meta({ description: 'N: agents per debate (or independent answers for majority, majority_ft, star).' }),
    rounds: positiveInt.default(2).meta({ description: 'R: rounds of a debate.' }),
    summarize: z.boolean().default(false).meta({
      description: "Later rounds see a summary of the other agents' answers (a summariser call) instead of the answers themselves.",
    }),
    others: z
      .strictObject({
        shuffle: z.boolean().default(true).meta({ description: 'Shuffle them (original_gen.py); false keeps agent order (ft_gen.py).' }),
        max: positiveInt.default(5).meta({ description: 'How many are shown at most (original_gen.py keeps 5; ft_gen.py all).' }),
      })
      .prefault({})
      .meta({ description: "What a later round shows of the other agents' previous answers (listed or summarised)." }),
    // The summariser is the model role `summarizer` (models section; frozen at the base model, as in the seed).
    summarizer: movedToModels('summarizer'),
    compat: compat.meta({
      description:
        "fixed: a problem no agent answered counts as wrong; seed: it is left out of the accuracy's denominator, as the seed's eval_math.py does.",
    }),
    temperature: z.number().min(0).max(2).default(1).meta({ description: "The agents' sampling temperature." }),
    diversity: z
      .strictObject({
        embeddings: z
          .strictObject({
            baseUrl: z
              .url({ message: 'must be a URL such as http://127.0.0.1:8000/v1' })
              .meta({ description: 'The OpenAI-compatible API root, e.g. http://127.0.0.1:8000/v1.' }),
            model: z.string().min(1).meta({ description: "The embedding model's name on the server." }),
            apiKeyEnv: envVarName.optional().meta({ description: 'Environment variable holding the API key.' }),
          })
          .optional()
          .meta({
            description:
              "An OpenAI-compatible endpoint whose `/v1/embeddings` embeds every agent's reply, giving `embedding_dissimilarity` (mean pairwise 1 − cosine between agents). Absent: not computed.",
          }),
      })
      .prefault({})
      .meta({
        description:
          "The paper's diversity measure (diversity.ts). The dry run's simulator serves a deterministic stand-in for embeddings (not a model).",
      }),
    data: z
      .strictObject({
        maintainedPerCorrected: z.number().min(0).default(0.5).meta({
          description:
            'Critic examples that kept their round-0 answer ("maintained") per example that changed it ("corrected"): the seed adds one maintained example per corrected one with probability 0.5, about 1 : 2.',
        }),
      })
      .prefault({})
      .meta({ description: "How the critics' training examples are chosen." }),
  })
  .meta({
    description:
      'Multiagent debate (multiagent-ft): N agents answer and revise over R rounds; generators and critics are finetuned on the debates.',
  });

export type DebateRecipeConfig = z.infer<typeof debateRecipeSchema>;

/** The single-model finetuning baselines: every agent is the one model `generator_0`. */
export const oneModel = (cfg: DebateRecipeConfig) => cfg.mode === 'majority_ft' || cfg.mode === 'star';

/** Agents and rounds a mode plays: single = one answer, majority (and the one-model baselines) = N independent
 *  answers, debate = N × R. */
export function shape(cfg: DebateRecipeConfig): { agents: number; rounds: number } {
  if (cfg.mode === 'single') return { agents: 1, rounds: 1 };
  if (cfg.mode === 'majority' || oneModel(cfg)) return { agents: cfg.agents, rounds: 1 };
  return { agents: cfg.agents, rounds: cfg.rounds };
}
