// Two debate iterations on a real Temporal dev server: the simulator plays every agent (SIMULATED policy — no model
// here), the stand-in trainer trains each of the six generator and critic roles on its own consensus-selected
// examples, in parallel, and the second iteration serves every role from the checkpoint its own data made. RECORD_HISTORIES=<tag> saves the histories for tests/workflows/replay.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer } from '../helpers/temporal';
import { recordHistoriesIfAsked, runLoop } from '../helpers/run-loop';
import { tempStateDir, testConfig } from '../helpers/config';
import { DEBATE_ROLES, debateTestRecipe } from '../helpers/debate';
import { evaluatedRecords } from '../helpers/records';
import { CHECKPOINT_MANIFEST } from '../../activities/serving/checkpoint-identity';
import { trainedSimulatedPolicy } from '../../activities/serving/simulated-skill';
import { reportHtml } from '../../activities/report/report-html';
import { recipeRuntime } from '../../activities/recipes/runtime';
import { loopWorkflowId } from '../../contracts/messages';
import { cli } from '../helpers/cli';
import { withWorkers } from '../helpers/workers';
import { artifactPath, readJsonl } from '../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('debate loop (simulated agents, stand-in trainer)', () => {
  it("debates, votes, selects each role's data by consensus, trains six roles, and serves each role's own chain", async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.recipe = debateTestRecipe();
      c.trainer.method = 'sft';
      c.trainer.dataFormat = 'trl';
      // A paper figure rides in the config (and so in the history) without changing what the workflows do.
      c.paper = {
        citation: 'Multiagent Finetuning, Table 1',
        figures: [{ metric: 'accuracy', value: 51.6, percent: true, setting: 'debate' }],
      };
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
    const records = evaluatedRecords(it0) as Array<{ agents: Array<{ answers: unknown[] }>; roundVotes: unknown[] }>;
    expect(records).toHaveLength(8);
    for (const r of records) {
      expect(r.agents.map((a) => a.answers.length)).toEqual([2, 2, 2]);
      expect(r.roundVotes).toHaveLength(2);
    }
    // Six trained roles, each its own chain: served from the base in iteration 0, then from what ITS data trained.
    const roles = DEBATE_ROLES;
    expect(Object.keys(it0.models!).sort()).toEqual([...roles].sort());
    const manifest = JSON.parse(readFileSync(artifactPath(it0.manifests['build-data']), 'utf8')) as {
      outputs: Record<string, number>;
    };
    const examples = (role: string) =>
      role.startsWith('generator')
        ? manifest.outputs[`${role}_examples`]
        : manifest.outputs[`${role}_corrected`] + manifest.outputs[`${role}_maintained`];
    const base = config.baseCheckpoint;
    const skillOf = (ck: string) => (JSON.parse(readFileSync(path.join(ck, 'simulated-policy.json'), 'utf8')) as { skill: number }).skill;
    for (const role of roles) {
      const [m0, m1] = [it0.models![role], it1.models![role]];
      expect(m0.kind).toBe('trained');
      expect(m0.checkpoint).toBe(base);
      // The role's own rows (TRL prompt-completion), as many as its consensus-selected examples.
      const rows = readJsonl<{ prompt: unknown[]; completion: unknown[] }>(m0.dataset!);
      expect(rows.length, role).toBe(examples(role));
      for (const row of rows) expect(Object.keys(row).sort()).toEqual(['completion', 'prompt']);
      expect(m0.nextCheckpoint).toBe(path.join(stateDir, 'checkpoints', runName, 'iter-1', role));
      // The stand-in trainer raised this role's skill by what its own rows buy.
      expect(skillOf(m0.nextCheckpoint!)).toBe(trainedSimulatedPolicy({ skill: skillOf(base) }, rows.length).skill);
      expect(m1.checkpoint).toBe(m0.nextCheckpoint);
      expect(m1.nextCheckpoint).toBe(path.join(stateDir, 'checkpoints', runName, 'iter-2', role));
      const lineage = JSON.parse(readFileSync(path.join(m1.nextCheckpoint!, CHECKPOINT_MANIFEST), 'utf8')) as Record<string, unknown>;
      expect(lineage).toMatchObject({ role, iteration: 1, baseCheckpoint: m0.nextCheckpoint, dataset: { sha256: m1.dataset!.sha256 } });
    }
    // The primary role (generator_0) is the loop's checkpoint.
    expect(it0.nextCheckpoint).toBe(it0.models!.generator_0.nextCheckpoint);
    // Iteration 1 served six checkpoints: six servers, each role's calls to its own.
    const deploy1 = JSON.parse(readFileSync(artifactPath(it1.manifests.deploy), 'utf8')) as {
      outputs: { servers: unknown[]; roles: Record<string, { endpoint: { cacheId: string } }> };
    };
    expect(deploy1.outputs.servers).toHaveLength(6);
    expect(new Set(roles.map((r) => deploy1.outputs.roles[r].endpoint.cacheId)).size).toBe(6);
    const deploy0 = JSON.parse(readFileSync(artifactPath(it0.manifests.deploy), 'utf8')) as { outputs: Record<string, unknown> };
    expect(deploy0.outputs.servers).toBeUndefined(); // one checkpoint, one server
    // What `status`, the loop's UI details and the report show: a chain per role.
    const chains = roles.map((r) => `${r} (trained): base-checkpoint → iter-1 → iter-2`);
    const status = await cli(['status', runName], { TEMPORAL_ADDRESS: env.address });
    expect(status.stdout).toContain(`model roles:\n${chains.map((c) => `  ${c}`).join('\n')}`);
    const report = await cli(['report', runName], { TEMPORAL_ADDRESS: env.address });
    expect(report.stdout).toContain(`model roles:\n${chains.map((c) => `    ${c}`).join('\n')}`);
    // The paper's figure beside the run's, from the config the run holds.
    const pct = (v: number) => `${(v * 100).toFixed(2)} %`;
    const best = [it0, it1].reduce((a, b) => (b.metrics.accuracy > a.metrics.accuracy ? b : a));
    expect(report.stdout).toContain(
      `paper figures:\n  accuracy: paper 51.6 % · this run: last ${pct(it1.metrics.accuracy)} (iter 1), highest ${pct(best.metrics.accuracy)} (iter ${best.iteration})\n    paper reports: Multiagent Finetuning, Table 1; debate`,
    );
    // The UI's "current details" of the loop (the built-in metadata query the UI itself sends; a worker answers it).
    const meta = await withWorkers(env, () =>
      env.client.workflow.getHandle(loopWorkflowId(runName)).query<{ currentDetails?: string }>('__temporal_workflow_metadata'),
    );
    expect(meta.currentDetails).toContain(`model roles:\n\n${chains.map((c) => `- ${c}`).join('\n')}`);
    const html = await reportHtml(runName, result.iterations, { config, recipe: () => recipeRuntime(config) });
    for (const r of roles)
      expect(html).toMatch(
        new RegExp(
          `<tr data-role="${r}"><td>${r}</td><td>trained</td><td><code>base-checkpoint → iter-1 → iter-2</code></td><td>\\d+ rows · 8 steps`,
        ),
      );

    await recordHistoriesIfAsked(env, runName, 'debate');
  });
});
