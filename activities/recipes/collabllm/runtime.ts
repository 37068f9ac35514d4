// Glue between CollabLLM's logic (this folder) and the generic stages: evaluation conversations on the eval split,
// built conversations (candidates, futures, rewards) on the train split, metrics, and the assistant's data.
import type { TrainingDataFormat } from '../../data/formats';
import type { GenerationServices, RecipeRuntime, RowSink, Split } from '../types';
import { SUCCESS_METRIC, weightsOf, type CollabllmRecipeConfig } from './config';
import {
  buildConversation,
  evaluateConversation,
  scoreContextFor,
  type CollabBuildRecord,
  type CollabChats,
  type CollabEvalRecord,
  type CollabSettings,
} from './conversation';
import { collabDataBuilder, emptyCollabData, planConvIds } from './data-builder';
import { collectedData } from '../collected-data';
import { byTaskAndSample } from '../shared/task-order';
import { COLLAB_METRIC_KINDS, collabMetrics, collabMetricsFold } from './iteration-metrics';
import { collabConversationView } from './report-view';
import type { RunTaskTests } from './score-conversation';
import { compatSettings } from './seed-settings';
import type { ChatMessage } from '../../llm/types';
import { readCollabSplit, type CollabTask } from './tasks';
import { COLLABLLM_PROMPTS } from './prompts';
import { recipePrompts } from '../prompt-file';
import { totalTokens } from '../../llm/usage';

/** Sandbox uids for unit tests run while generating (60000 + slot): apart from the sandbox queue's scoring slots. */
const GENERATION_SLOT_BASE = 200;

/** At most `slots` sandboxed runs at once, each on its own slot (its own uid). */
function slotPool(slots: number) {
  const free = Array.from({ length: slots }, (_, i) => GENERATION_SLOT_BASE + i);
  const waiting: Array<(slot: number) => void> = [];
  return async <T>(fn: (slot: number) => Promise<T>): Promise<T> => {
    const slot = free.pop() ?? (await new Promise<number>((r) => waiting.push(r)));
    try {
      return await fn(slot);
    } finally {
      const next = waiting.shift();
      if (next) next(slot);
      else free.push(slot);
    }
  };
}

/** The data loop's settings from the recipe section (also the online-RL reward service's). */
export function collabSettings(cfg: CollabllmRecipeConfig, seed: number): CollabSettings {
  const d = compatSettings(cfg);
  return {
    maxMessages: cfg.maxMessages,
    candidates: cfg.candidates,
    futures: cfg.futures,
    window: cfg.window,
    weights: weightsOf(cfg),
    aggregation: cfg.aggregation,
    proactive: cfg.mode === 'proactive',
    proact: { ratio: cfg.proact.ratio, parseRetries: d.proactParseRetries },
    assistant: { temperature: cfg.temperature, topP: cfg.topP, maxTokens: cfg.maxTokens },
    user: {
      temperature: cfg.user.temperature,
      maxTokens: cfg.user.maxTokens,
      parseRetries: d.userParseRetries,
      goalHint: cfg.user.goalHint,
    },
    judge: { maxTokens: d.judgeMaxTokens, parseRetries: d.judgeRetries, extractRetries: d.extractRetries },
    compat: cfg.compat,
    seed,
    prompts: recipePrompts(COLLABLLM_PROMPTS, cfg),
  };
}

/** A code task's unit tests run in the sandbox, at most `sandbox.slots` at once (undefined without a sandbox). */
export function taskTestRunner(cfg: CollabllmRecipeConfig): (s: GenerationServices) => RunTaskTests | undefined {
  const withSlot = slotPool(cfg.sandbox.slots);
  return ({ runUnitTests: run }) =>
    run
      ? (t, code) =>
          withSlot((slot) =>
            run({ code, test: t.code!.test, entryPoint: t.code!.entryPoint, timeoutSeconds: cfg.sandbox.timeoutSeconds, slot }),
          )
      : undefined;
}

export function collabRuntime(
  cfg: CollabllmRecipeConfig,
  seed: number,
  format: TrainingDataFormat,
): RecipeRuntime<CollabEvalRecord, CollabBuildRecord> {
  const tasksFor = (split: Split): CollabTask[] => readCollabSplit(cfg, split, cfg.task);
  const taskOf = (split: Split, id: string) => tasksFor(split).find((t) => t.id === id);
  const settings = collabSettings(cfg, seed);
  const testsWith = taskTestRunner(cfg);
  const builder = (convId: (r: CollabBuildRecord) => number) => (sink: RowSink) => {
    const train = new Map(tasksFor('train').map((t) => [t.id, t]));
    const options = { minGap: cfg.data.minGap, sftFloor: cfg.data.sftFloor, format, taskOf: (id: string) => train.get(id), convId };
    return collabDataBuilder(options, sink);
  };
  return {
    taskCount: (split) => tasksFor(split).length,
    samplesPerTask: (split) => (split === 'eval' ? cfg.evalSamples : cfg.trainSamples),
    runTask: ({ split, taskIndex, sampleIndex, chats, services }) => {
      const task = tasksFor(split)[taskIndex];
      const runTests = testsWith(services);
      const score = scoreContextFor(settings, task, { judge: chats.judge, extractor: chats.extractor }, runTests);
      const roles: CollabChats = { assistant: chats.assistant, user: chats.user, judge: chats.judge, extractor: chats.extractor };
      return split === 'eval'
        ? evaluateConversation(task, sampleIndex, roles, settings, score)
        : buildConversation(task, sampleIndex, roles, settings, score);
    },
    recordTokens: ({ usage }) => totalTokens(usage),
    metrics: (records) => collabMetrics(records, SUCCESS_METRIC[cfg.task]),
    metricsFold: () => collabMetricsFold(SUCCESS_METRIC[cfg.task]),
    metricKinds: COLLAB_METRIC_KINDS,
    buildData: (built) => {
      // Handed over in (task, sample) order, the conversations are numbered as they come.
      let convId = 0;
      return collectedData(
        builder(() => convId++),
        [...built].sort(byTaskAndSample),
        emptyCollabData(),
      );
    },
    dataBuilder: (sink) => builder(planConvIds(tasksFor('train'), cfg.trainSamples))(sink),
    describeRecord: (split, record) => collabConversationView(record, taskOf(split, record.taskId)),
    // What the policy sees first: the user's request (the simulator's opening names the task's first line).
    probePrompts: (n) =>
      tasksFor('eval')
        .slice(0, n)
        .map((t): ChatMessage[] => [{ role: 'user', content: t.prompt.trim().split('\n')[0] }]),
  };
}
