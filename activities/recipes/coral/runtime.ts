// Glue between CoRal's pure logic (this folder) and the generic stages: which tasks, which decoding per split,
// which metrics, which data builders.
import type { CoralRecipeConfig } from './config';
import { AGENT_ROLE, type RecipeRuntime, type RowSink, type Split } from '../types';
import { runCoralConversation, type CoralConversation } from './conversation';
import type { TrainingDataFormat } from '../../data/formats';
import { agentView } from './agent-view';
import { CORAL_PROMPTS, defaultSystemPromptStyle, openingMessage, systemPrompt } from './prompts';
import { recipePrompts } from '../prompt-file';
import { CORAL_METRIC_KINDS, coralMetrics, coralMetricsFold } from './metrics';
import { coralDataOptions } from './data-options';
import { coralDataBuilder } from './data-builder';
import { collectedData, emptyDatasets } from '../collected-data';
import { coralConversationView } from './report-view';
import { byTaskAndSample } from '../shared/task-order';
import { loadCoralTasks, type CoralTask } from './tasks';
import { splitTaskReader } from '../task-file';
import { agentDecoding } from './decoding';
import { totalTokens } from '../../llm/usage';

const readSplit = splitTaskReader(loadCoralTasks);
const tasksFor = (cfg: CoralRecipeConfig, split: Split): CoralTask[] => readSplit(cfg, split, cfg.dataset);

export function coralRuntime(cfg: CoralRecipeConfig, seed: number, format: TrainingDataFormat): RecipeRuntime<CoralConversation> {
  const prompts = recipePrompts(CORAL_PROMPTS, cfg);
  const dataBuilder = (sink: RowSink) => coralDataBuilder(AGENT_ROLE, coralDataOptions(cfg, seed), format, sink);
  return {
    taskCount: (split) => tasksFor(cfg, split).length,
    samplesPerTask: (split) => (split === 'eval' ? cfg.evalSamples : cfg.trainSamples),
    runTask: ({ split, taskIndex, sampleIndex, chats }) =>
      runCoralConversation({
        task: tasksFor(cfg, split)[taskIndex],
        prompts,
        agent: chats[AGENT_ROLE],
        extractor: chats.extractor,
        sampleIndex,
        mode: cfg.mode,
        maxTurns: cfg.maxTurns,
        agentDecoding: agentDecoding(cfg, split),
        extractorDecoding: { temperature: 0, maxTokens: cfg.extractorMaxTokens },
        // Tree sampling only when generating training data; evaluation follows one path.
        beamSize: split === 'train' ? cfg.beamSize : 1,
        seed,
        compat: cfg.compat,
      }),
    recordTokens: ({ usage }) => totalTokens(usage),
    metrics: (records) => coralMetrics(records, cfg.compat),
    metricsFold: () => coralMetricsFold(cfg.compat),
    metricKinds: CORAL_METRIC_KINDS,
    buildData: (convs) => collectedData(dataBuilder, [...convs].sort(byTaskAndSample), emptyDatasets([AGENT_ROLE])),
    dataBuilder,
    describeRecord: (split, c) =>
      coralConversationView(
        c,
        tasksFor(cfg, split).find((t) => t.id === c.taskId),
      ),
    // The teacher's first request of an evaluation conversation.
    probePrompts: (n) =>
      tasksFor(cfg, 'eval')
        .slice(0, n)
        .map((task) =>
          agentView(
            systemPrompt(prompts, task.dataset, defaultSystemPromptStyle(task.dataset)),
            [{ role: 'student', content: openingMessage(prompts, task) }],
            'teacher',
            '',
          ),
        ),
  };
}
