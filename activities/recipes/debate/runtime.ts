// Glue between debate's pure logic (this folder) and the generic stages: tasks per split, one debate per
// (task, sample), metrics, and the data every generator and critic role learns from.
import type { RecipeRuntime, Split } from '../types';
import { formatSft, type TrainingDataFormat } from '../../data/formats';
import type { HeldRows } from '../../data/held-rows';
import { oneModel, shape, type DebateRecipeConfig } from './config';
import { baselineSelection, debateSelection, type EmitExample, selectedExamples } from './data';
import { debateDataBuilder } from './data-builder';
import { runDebate, type DebateRecord } from './debate';
import { type Embed, withEmbeddingDissimilarity } from './diversity';
import { embeddingsClient } from '../../llm/embeddings';
import { DEBATE_METRIC_KINDS, debateMetrics, debateMetricsFold } from './metrics';
import { DEBATE_PROMPTS, firstRoundPrompt } from './prompts';
import { recipePrompts } from '../prompt-file';
import { debateConversationView } from './report-view';
import { loadDebateTasks, type DebateTask } from './tasks';
import { splitTaskReader } from '../task-file';
import { totalTokens } from '../../llm/usage';

const readSplit = splitTaskReader(loadDebateTasks);

export function debateRuntime(cfg: DebateRecipeConfig, seed: number, format: TrainingDataFormat): RecipeRuntime<DebateRecord> {
  const tasksFor = (split: Split): DebateTask[] => readSplit(cfg, split, cfg.dataset);
  const { agents, rounds } = shape(cfg);
  const prompts = recipePrompts(DEBATE_PROMPTS, cfg);
  // The client is made on first use: stages that never embed (metrics, data) need no key.
  const embedding = cfg.diversity.embeddings;
  let client: Embed | undefined;
  const embed: Embed | undefined = embedding && ((texts) => (client ??= embeddingsClient(embedding))(texts));
  // The same selection builds the rows in memory (buildData) and streamed (dataBuilder).
  const selection = (emit: EmitExample, held: HeldRows) =>
    oneModel(cfg)
      ? baselineSelection({ dataset: cfg.dataset, keep: cfg.mode === 'star' ? 'gold' : 'vote', compat: cfg.compat }, emit)
      : debateSelection(
          { dataset: cfg.dataset, maintainedPerCorrected: cfg.data.maintainedPerCorrected, seed, compat: cfg.compat },
          emit,
          held,
        );
  return {
    taskCount: (split) => tasksFor(split).length,
    samplesPerTask: (split) => (split === 'eval' ? cfg.evalSamples : cfg.trainSamples),
    runTask: async ({ split, taskIndex, sampleIndex, chats }) => {
      const record = await runDebate({
        task: tasksFor(split)[taskIndex],
        prompts,
        sampleIndex,
        agents,
        rounds,
        summarize: cfg.summarize,
        others: cfg.others,
        oneModel: oneModel(cfg),
        chats,
        decoding: { temperature: cfg.temperature, topP: cfg.topP, maxTokens: cfg.maxTokens },
        seed,
        compat: cfg.compat,
      });
      return embed && split === 'eval' ? withEmbeddingDissimilarity(record, embed) : record;
    },
    recordTokens: ({ usage }) => totalTokens(usage),
    metrics: (records) => debateMetrics(records, { dataset: cfg.dataset, compat: cfg.compat }),
    metricsFold: () => debateMetricsFold({ dataset: cfg.dataset, compat: cfg.compat }),
    metricKinds: DEBATE_METRIC_KINDS,
    buildData: (records) => {
      const data = selectedExamples(records, selection);
      // Each role learns from its own examples only.
      const byRole = Object.fromEntries(Object.entries(data.examples).map(([role, ex]) => [role, { sft: formatSft(ex, format), dpo: [] }]));
      return { byRole, counts: data.counts };
    },
    dataBuilder: (sink) => debateDataBuilder(selection, format, sink),
    describeRecord: (split, r) =>
      debateConversationView(
        r,
        tasksFor(split).find((t) => t.id === r.taskId),
      ),
    probePrompts: (n) =>
      tasksFor('eval')
        .slice(0, n)
        .map((t) => [{ role: 'user' as const, content: firstRoundPrompt(prompts, t.dataset, t.problem) }]),
  };
}
