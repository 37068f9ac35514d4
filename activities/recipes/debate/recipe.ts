// Debate as the loop sees it: its config section, its roles (a generator and a critic per agent, and the
// summariser), its runtime, its simulator and its `score` command. Nothing outside this folder names debate.
import { jsonlRows } from '../task-file';
import { ScoreInputError, type RecipeDefinition, type RoleDefault } from '../types';
import { debateRecipeSchema, oneModel, shape, type DebateRecipeConfig } from './config';
import { criticRole, generatorRole, SUMMARIZER_ROLE, type DebateRecord } from './debate';
import { DEBATE_PROMPTS } from './prompts';
import { parseAnswer, isCorrect } from './answers';
import { createDebateSimulatedPolicy } from './simulated-policy';
import { DEBATE_DATASETS, isDebateDataset, loadDebateTasks } from './tasks';
import { majorityVote } from './vote';
import { debateFidelity } from './fidelity';
import { DEBATE_METRIC_KINDS } from './metrics';

export const debateRecipe: RecipeDefinition<DebateRecipeConfig, DebateRecord> = {
  name: 'debate',
  schema: debateRecipeSchema,
  prompts: DEBATE_PROMPTS,
  // A society of trained models: agent n's round 0 is its generator, its later rounds its critic (each with its own
  // checkpoint chain); the summariser stays at the base model, as in the seed.
  roles: (cfg) => {
    if (oneModel(cfg)) return { [generatorRole(0)]: 'trained' };
    const { agents, rounds } = shape(cfg);
    const roles: Record<string, RoleDefault> = {};
    for (let n = 0; n < agents; n++) roles[generatorRole(n)] = 'trained';
    if (rounds > 1) for (let n = 0; n < agents; n++) roles[criticRole(n)] = 'trained';
    if (cfg.summarize && rounds > 1 && agents > 1) roles[SUMMARIZER_ROLE] = 'frozen';
    return roles;
  },
  fidelity: debateFidelity,
  // `others` came later: before it, later rounds showed every other agent, in agent order (multiagent-ft ft_gen.py).
  fromUnversioned: (s) => ('others' in s ? s : { ...s, others: { shuffle: false, max: Number.MAX_SAFE_INTEGER } }),
  headlineMetric: 'accuracy',
  metricKinds: DEBATE_METRIC_KINDS,
  needs: () => ({ sandboxScoring: false, modelsForData: false, rendering: false }),
  runtime: async (cfg, o) => (await import('./runtime')).debateRuntime(cfg, o.seed, o.format),
  check: (_cfg, o) =>
    o.trainerMethod === 'dpo'
      ? { field: 'trainer.method', message: 'debate trains its agents with SFT (the seed finetunes on consensus answers): use sft' }
      : undefined,
  simulator: {
    taskKind: (cfg) => cfg.dataset,
    policy: (files, p) => {
      const tasks = files.flatMap(({ file, kind }) => {
        if (!isDebateDataset(kind)) throw new Error(`--tasks ${file}:${kind}: the dataset must be one of ${DEBATE_DATASETS.join(', ')}`);
        return loadDebateTasks(file, kind);
      });
      return createDebateSimulatedPolicy({ tasks, skill: p.skill, agreeability: p.agreeability }) as ReturnType<
        RecipeDefinition['simulator']['policy']
      >;
    },
  },
  // Each record ({"answers": [agent replies], "answer": gold}) → every agent's answer, the vote, and whether the
  // vote is right: the way to check answer parsing and the vote on hand-labelled cases. A reply is read as the loop
  // reads it (parseAnswer: no \boxed{}, no answer — the seed's parse); an agent's answer given bare is an object
  // {"answer": "…"}, taken as if boxed.
  score: async (o) => {
    if (!o.dataset || !isDebateDataset(o.dataset))
      throw new ScoreInputError(`--dataset: must be one of ${DEBATE_DATASETS.join(', ')} for --recipe debate`);
    const dataset = o.dataset;
    return jsonlRows(o.input).map(({ row: raw, line }) => {
      const where = `${o.input} line ${line}`;
      const row = (raw ?? {}) as { answers?: unknown; answer?: unknown };
      if (!Array.isArray(row.answers))
        throw new ScoreInputError(
          `${where}: field "answers" must be a list of the agents' replies (strings) or bare answers ({"answer": …})`,
        );
      if (typeof row.answer !== 'string' && typeof row.answer !== 'number')
        throw new ScoreInputError(`${where}: field "answer" (the gold answer) is missing`);
      const answers = row.answers.map((a: unknown, i) => {
        if (typeof a === 'string') return parseAnswer(dataset, a);
        const bare = (a as { answer?: unknown } | null)?.answer;
        if (typeof bare === 'string' || typeof bare === 'number') return parseAnswer(dataset, `\\boxed{${bare}}`);
        throw new ScoreInputError(
          `${where}: field "answers" item ${i + 1} must be an agent's reply (a string) or a bare answer ({"answer": …})`,
        );
      });
      const vote = majorityVote(dataset, answers, o.compat);
      return JSON.stringify({
        answers,
        vote: vote.answer ?? null,
        clusters: vote.clusters.map((c) => ({ answer: c.answer, count: c.count })),
        correct: isCorrect(dataset, vote.answer, String(row.answer), o.compat),
      });
    });
  },
};
