// Evaluation and build-data stream ColBench's episodes (metricsFold, dataBuilder): the fold gives the metrics
// `metrics` gives (best-of-k one task at a time), and the builder writes the MT-DPO / RFT rows `buildData` returns,
// each task's once its episodes are in, as SWEET-RL's critic rows are. SWEET-RL's build with models still reads every
// episode (runtime.ts).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../../configs/load';
import { createColbenchSimulatedPolicy, type ColbenchTrajectory } from '../../../../../activities/recipes/colbench';
import type { ColbenchCodeRecipeConfig } from '../../../../../activities/recipes/colbench/config';
import { codeKind } from '../../../../../activities/recipes/colbench/kinds';
import { criticPreferencePairs, trajectoryDpoRow } from '../../../../../activities/recipes/colbench/baselines';
import { colbenchRuntime, type ScoredTrajectory } from '../../../../../activities/recipes/colbench/runtime';
import { foldRecords } from '../../../../../activities/recipes/metrics-fold';
import type { Split } from '../../../../../activities/recipes/types';
import { fakeRender, fakeSimilarity, memoryImages, simulatedChat, textualRunCodeTests } from '../../../../helpers/colbench';
import { CONFIGS } from '../../../../helpers/config';
import { builtRows, streamedBuild } from '../../../../helpers/streamed-build';

const { config } = loadConfig(path.join(CONFIGS, 'colbench-code.dry-run.yaml'), {
  overrides: ['recipe.evalSamples=3', 'recipe.trainSamples=4', 'recipe.data.method=mt-dpo'],
});
const cfg = config.recipe as ColbenchCodeRecipeConfig;
const runtime = colbenchRuntime(cfg, config.seed, 'trl');
const images = memoryImages();
const services = { runCodeTests: textualRunCodeTests(), render: fakeRender, similarity: () => fakeSimilarity, ...images };

/** Every episode of a split in plan order (task-major, tasks in task-file order), by a simulated policy, scored. */
async function planEpisodes(split: Split): Promise<ScoredTrajectory[]> {
  const policy = createColbenchSimulatedPolicy({ tasks: codeKind(cfg).tasks(split), skill: 0.5 });
  const chats = { agent: simulatedChat(policy), human: simulatedChat(policy) };
  const episodes: ColbenchTrajectory[] = [];
  for (let taskIndex = 0; taskIndex < runtime.taskCount(split); taskIndex++)
    for (let sampleIndex = 0; sampleIndex < runtime.samplesPerTask(split); sampleIndex++)
      episodes.push(await runtime.runTask({ split, taskIndex, sampleIndex, chats, services: {} }));
  return (await runtime.scoreRecords!(split, episodes, services)) as ScoredTrajectory[];
}

describe('ColBench streams its episodes', () => {
  it('the metrics fold gives what metrics gives, best-of-k included', async () => {
    const episodes = await planEpisodes('eval');
    const metrics = runtime.metrics(episodes);
    expect(metrics.best_of_3_success_rate).toBeGreaterThan(0);
    const folded = foldRecords(runtime.metricsFold(), episodes);
    expect(folded).toStrictEqual(metrics);
    expect(Object.keys(folded)).toEqual(Object.keys(metrics));
    // Best-of-k holds one task at a time: the fold refuses a task whose episodes come back after another's, while
    // metrics over records in memory takes them in any order.
    const [a, b] = [episodes[0], episodes[3]];
    const scattered = [a, b, { ...a, sampleIndex: 1 }];
    expect(() => foldRecords(runtime.metricsFold(), scattered)).toThrow(/records of task .* are not together/);
    expect(runtime.metrics(scattered)).toStrictEqual(runtime.metrics([a, { ...a, sampleIndex: 1 }, b]));
  });

  it('the streaming builder writes the rows buildData returns, each task’s once its episodes are in', async () => {
    const episodes = await planEpisodes('train');
    const streamed = streamedBuild(runtime, episodes);
    const built = runtime.buildData(episodes);
    expect(built.counts.trajectory_pairs).toBeGreaterThan(0);
    expect(built.counts.sft_examples).toBeGreaterThan(0);
    expect(streamed.rows).toEqual(builtRows(built));
    expect(streamed.counts).toStrictEqual(built.counts);
    // Rows were written before the last episode arrived, at a task's end (every 4 episodes).
    expect(streamed.firstRowAt).toBeLessThan(episodes.length);
    expect(streamed.firstRowAt! % 4).toBe(0);
  });

  it("SWEET-RL's critic rows are the trajectory pairs over all episodes, written one task at a time", async () => {
    const sweet = colbenchRuntime({ ...cfg, data: { ...cfg.data, method: 'sweet-rl' } }, config.seed, 'trl');
    const episodes = await planEpisodes('train');
    const streamed = streamedBuild({ dataBuilder: sweet.scorerDataBuilder! }, episodes);
    const score = (e: ScoredTrajectory) => (e.score && 'fraction' in e.score ? e.score.fraction : 0);
    const pairs = criticPreferencePairs(episodes, episodes.map(score), codeKind(cfg).tasks('train'), config.seed);
    expect(pairs.length).toBeGreaterThan(0);
    expect(streamed.rows).toEqual({ 'critic/dpo': pairs.map((p) => JSON.stringify(trajectoryDpoRow(p))).sort() });
    expect(streamed.counts).toEqual({ critic_pairs: pairs.length });
    expect(streamed.firstRowAt! % 4).toBe(0);
    expect(streamed.firstRowAt).toBeLessThan(episodes.length);
  });
});
