// Evaluation and build-data stream CollabLLM's records (metricsFold, dataBuilder): the fold gives the metrics
// `metrics` gives, and the builder writes, record by record, the rows `buildData` returns — with each multiturn row's
// conv_id, a place in (task id, sample) order, known from the plan although records arrive in task-file order.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../../configs/load';
import type { CollabllmRecipeConfig } from '../../../../../activities/recipes/collabllm/config';
import type { CollabBuildRecord, CollabEvalRecord } from '../../../../../activities/recipes/collabllm/conversation';
import { collabRuntime } from '../../../../../activities/recipes/collabllm/runtime';
import { createCollabSimulatedPolicy } from '../../../../../activities/recipes/collabllm/simulated-policy';
import { readCollabSplit } from '../../../../../activities/recipes/collabllm/tasks';
import { foldRecords } from '../../../../../activities/recipes/metrics-fold';
import type { Split } from '../../../../../activities/recipes/types';
import { CONFIGS } from '../../../../helpers/config';
import { simulatedCollabChats } from '../../../../helpers/simulated-chat';
import { builtRows, streamedBuild } from '../../../../helpers/streamed-build';

const { config } = loadConfig(path.join(CONFIGS, 'collabllm.dry-run.yaml'), {
  overrides: ['recipe.trainSamples=2', 'recipe.evalSamples=2'],
});
const cfg = config.recipe as CollabllmRecipeConfig;
const runtime = collabRuntime(cfg, config.seed, 'trl');

/** Every conversation of a split in plan order (task-major, tasks in task-file order), by a simulated policy. */
async function planRecords<R>(split: Split): Promise<R[]> {
  const tasks = readCollabSplit(cfg, split, cfg.task);
  const chats = simulatedCollabChats(createCollabSimulatedPolicy({ tasks, skill: 0.6 }));
  const records: R[] = [];
  for (let taskIndex = 0; taskIndex < runtime.taskCount(split); taskIndex++)
    for (let sampleIndex = 0; sampleIndex < runtime.samplesPerTask(split); sampleIndex++)
      records.push((await runtime.runTask({ split, taskIndex, sampleIndex, chats, services: {} })) as R);
  return records;
}

describe('CollabLLM streams its records', () => {
  it('the metrics fold gives what metrics gives', async () => {
    const records = await planRecords<CollabEvalRecord>('eval');
    const metrics = runtime.metrics(records);
    expect(metrics.conversations).toBe(records.length);
    expect(foldRecords(runtime.metricsFold(), records)).toStrictEqual(metrics);
    expect(Object.keys(foldRecords(runtime.metricsFold(), records))).toEqual(Object.keys(metrics));
  });

  it('the streaming builder writes the rows buildData returns, each conversation’s as it arrives', async () => {
    const records = await planRecords<CollabBuildRecord>('train');
    const ids = readCollabSplit(cfg, 'train', cfg.task).map((t) => t.id);
    // The task file is not in id order, so plan order is not the order conv_id counts in.
    expect(ids).not.toEqual([...ids].sort());
    const streamed = streamedBuild(runtime, records);
    const built = runtime.buildData(records);
    expect(built.counts.multiturn_rows).toBeGreaterThan(0);
    expect(streamed.rows).toEqual(builtRows(built));
    expect(streamed.counts).toStrictEqual(built.counts);
    // The first conversation's rows were written as it arrived, not at the end.
    expect(streamed.firstRowAt).toBe(0);
    // A conversation the plan does not hold has no conv_id.
    expect(() => streamedBuild(runtime, [{ ...records[0], sampleIndex: 2 }])).toThrow(/not in the plan/);
  });
});
