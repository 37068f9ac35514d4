// A full colbench-code iteration on a real Temporal dev server: the dry-run server plays the agent, the human and
// the critic (SIMULATED policies — no model here); every answer is scored by running it against the hidden tests in
// the real Python sandbox (sandbox task queue); SWEET-RL builds step-level DPO pairs from the training trajectories
// (candidates from the served endpoint, ranks from the critic); the stand-in trainer trains on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import path from 'node:path';
import { trainingLoop } from '../../workflows/loop';
import { loopWorkflowId } from '../../contracts/messages';
import { recordHistoriesIfAsked } from '../helpers/run-loop';
import { TASK_QUEUES } from '../../contracts/run';
import { loadColbenchTasks } from '../../activities/recipes/colbench';
import { startDevServer } from '../helpers/temporal';
import { withWorkers } from '../helpers/workers';
import { CONFIGS, tempStateDir, testConfig } from '../helpers/config';
import { evaluatedRecords } from '../helpers/records';
import { readJsonl, readJson } from '../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const TASKS = path.join(CONFIGS, 'tasks/colbench/backend.jsonl');

describe('colbench-code iteration (simulated agent/human/critic, real sandbox, SWEET-RL data)', () => {
  it('scores answers in the sandbox and builds step-level DPO pairs that never show the reference', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.iterations = 1;
      c.recipe = {
        name: 'colbench-code',
        evalTasks: TASKS,
        trainTasks: TASKS,
        limit: 6,
        evalSamples: 1,
        trainSamples: 2,
        data: { method: 'sweet-rl', fraction: 0.5, candidates: 4, pairsPerTurn: 2 },
      };
      c.trainer.dataFormat = 'openrlhf';
      c.generation = { shardSize: 3, concurrency: 4, heartbeatTimeoutSeconds: 10 };
    });
    const runName = 'colbench';
    const result = await withWorkers(env, () =>
      env.client.workflow.execute(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      }),
    );
    const it0 = result.iterations[0];
    expect(it0.metrics.episodes).toBe(6);
    expect(it0.metrics.success_rate).toBeGreaterThan(0); // skill 0.45: some exact references…
    expect(it0.metrics.success_rate).toBeLessThan(1); // …and some buggy variants the hidden tests catch
    const records = evaluatedRecords(it0) as Array<{
      taskId: string;
      score: { passed: number; total: number; success: boolean };
    }>;
    expect(records).toHaveLength(6);
    for (const r of records) {
      expect(r.score.total).toBeGreaterThanOrEqual(6);
      expect(r.score.success).toBe(r.score.passed === r.score.total);
    }
    // SWEET-RL pairs: OpenRLHF chat rows, prompt = the dialogue as the agent saw it — never the hidden reference.
    const rows = readJsonl<{
      prompt: Array<{ role: string; content: string }>;
      chosen: unknown[];
      rejected: unknown[];
    }>(it0.datasets!.dpo!);
    expect(rows.length).toBeGreaterThan(0);
    const references = loadColbenchTasks(TASKS, 'code')
      .slice(0, 6)
      .map((t) => t.reference.split('\n')[0]);
    for (const row of rows) {
      expect(Object.keys(row).sort()).toEqual(['chosen', 'prompt', 'rejected']);
      const prompt = JSON.stringify(row.prompt);
      for (const ref of references) expect(prompt).not.toContain(ref);
    }
    expect(it0.nextCheckpoint).toBeTruthy();

    // The learned critic (the default, the seed's): trained this iteration, before the agent's data was built, on
    // whole-trajectory pairs with the reference in front — the one place the reference may appear.
    const critic = it0.models!.critic;
    expect(critic.kind).toBe('trained');
    expect(critic.nextCheckpoint).toBeTruthy();
    expect(critic.nextCheckpoint).not.toBe(it0.nextCheckpoint);
    const criticRows = readJsonl<{
      chosen: Array<{ role: string; content: string }>;
      rejected: Array<{ role: string; content: string }>;
    }>(critic.dataset!);
    expect(criticRows.length).toBeGreaterThan(0);
    const taskReferences = loadColbenchTasks(TASKS, 'code').map((t) => t.reference);
    for (const row of criticRows) {
      expect(row.chosen[0].role).toBe('system');
      expect(taskReferences.some((ref) => row.chosen[0].content.includes(ref))).toBe(true);
      expect(row.rejected[0]).toEqual(row.chosen[0]);
    }
    // The agent's pairs were ranked by log-probs (the simulator's prompt_logprobs), not by a judge's reply.
    const manifest = readJson<{ outputs: Record<string, unknown> }>(it0.manifests['build-data']);
    expect(manifest.outputs.step_pairs).toBeGreaterThan(0);
    expect(manifest.outputs.unscored_states).toBe(0);
    expect(manifest.outputs.logprob_ranked).toBe((manifest.outputs.turn_states as number) * 4);

    await recordHistoriesIfAsked(env, runName, 'colbench');
  });
});
