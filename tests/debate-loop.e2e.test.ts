// Two debate iterations on a real Temporal dev server: the simulator plays every agent (SIMULATED policy — no model
// here), the stand-in trainer trains on the consensus-selected examples of every role, and the second iteration
// serves the checkpoint the first trained. RECORD_HISTORIES=<tag> saves the histories for tests/replay.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ArtifactStore } from '../activities/artifacts/store';
import { startDevServer } from './helpers/temporal';
import { recordHistoriesIfAsked, runLoop } from './helpers/run-loop';
import { CONFIGS, tempStateDir, testConfig } from './helpers/config';
import { evaluatedRecords } from './helpers/records';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const TASKS = path.join(CONFIGS, 'tasks/debate/math.jsonl');

describe('debate loop (simulated agents, stand-in trainer)', () => {
  it("debates, votes, selects each role's data by consensus, trains, and serves the trained checkpoint next", async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.recipe = { name: 'debate', dataset: 'math', evalTasks: TASKS, trainTasks: TASKS, agents: 3, rounds: 2, trainSamples: 2, limit: 8 };
      c.trainer.method = 'sft';
      c.trainer.dataFormat = 'trl';
    });
    const runName = 'debate';
    const result = await runLoop(env, runName, config);
    const [it0, it1] = result.iterations;
    expect(it0.metrics).toMatchObject({ debates: 8, answered: 8 });
    for (const k of ['accuracy', 'consensus_rate', 'agent_0_accuracy', 'agent_2_accuracy', 'round_0_accuracy', 'round_1_accuracy'])
      expect(it0.metrics[k], k).toSatisfy((v: number) => v >= 0 && v <= 1); // rates, present in every iteration
    expect(it0.metrics.round_1_accuracy).toBe(it0.metrics.accuracy); // the debate's answer is the last round's vote
    expect(it1.checkpoint).toBe(it0.nextCheckpoint);
    // Every evaluated debate: 3 agents, 2 rounds, a vote per round.
    const records = evaluatedRecords(stateDir, it0) as Array<{ agents: Array<{ answers: unknown[] }>; roundVotes: unknown[] }>;
    expect(records).toHaveLength(8);
    for (const r of records) {
      expect(r.agents.map((a) => a.answers.length)).toEqual([2, 2, 2]);
      expect(r.roundVotes).toHaveLength(2);
    }
    // The SFT rows are TRL prompt-completion rows; the build-data manifest counts each role's examples.
    const store = new ArtifactStore(path.join(stateDir, 'artifacts'));
    const rows = store.readJsonl<{ prompt: unknown[]; completion: unknown[] }>(it0.datasets!.sft!);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['completion', 'prompt']);
    const manifest = JSON.parse(readFileSync(ArtifactStore.pathOf(it0.manifests['build-data']), 'utf8')) as {
      outputs: Record<string, number>;
    };
    const perRole = ['generator_0_examples', 'generator_1_examples', 'generator_2_examples'].map((k) => manifest.outputs[k]);
    const critics = [0, 1, 2].map((n) => manifest.outputs[`critic_${n}_corrected`] + manifest.outputs[`critic_${n}_maintained`]);
    expect([...perRole, ...critics].reduce((a, b) => a + b, 0)).toBe(rows.length);

    await recordHistoriesIfAsked(env, runName, 'debate');
  });
});
