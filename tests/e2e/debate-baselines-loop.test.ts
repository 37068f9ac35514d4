// The single-model baselines through the loop on a real Temporal dev server (SIMULATED agents, stand-in trainer):
// mode majority_ft plays N independent answers of one model, `generator_0`, the only role trained, on the answers
// that agree with their vote; iteration 1 serves that role's own checkpoint.
import { readFileSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactPath, readJsonl } from '../helpers/artifacts';
import { tempStateDir, testConfig } from '../helpers/config';
import { debateTestRecipe } from '../helpers/debate';
import { evaluatedRecords } from '../helpers/records';
import { runLoop } from '../helpers/run-loop';
import { startDevServer } from '../helpers/temporal';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('debate mode majority_ft (one model, N samples, trained on its vote-agreeing answers)', () => {
  it('trains only generator_0, on as many rows as the build counted, and serves its checkpoint next', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.recipe = { ...debateTestRecipe(), mode: 'majority_ft', agents: 4 };
      c.trainer.method = 'sft';
      c.trainer.dataFormat = 'trl';
    });
    const result = await runLoop(env, 'debate-majority-ft', config);
    const [it0, it1] = result.iterations;
    expect(Object.keys(it0.models!)).toEqual(['generator_0']);
    const records = evaluatedRecords(it0) as Array<{ agents: Array<{ answers: unknown[] }>; roundVotes: unknown[] }>;
    expect(records).toHaveLength(8);
    for (const r of records) {
      expect(r.agents.map((a) => a.answers.length)).toEqual([1, 1, 1, 1]); // four answers, one round
      expect(r.roundVotes).toHaveLength(1);
    }
    const manifest = JSON.parse(readFileSync(artifactPath(it0.manifests['build-data']), 'utf8')) as { outputs: Record<string, number> };
    const rows = readJsonl<{ prompt: unknown[]; completion: unknown[] }>(it0.models!.generator_0.dataset!);
    expect(rows.length).toBe(manifest.outputs.generator_0_examples);
    expect(rows.length).toBeGreaterThan(0);
    expect(it1.models!.generator_0.checkpoint).toBe(it0.models!.generator_0.nextCheckpoint);
  });
});
