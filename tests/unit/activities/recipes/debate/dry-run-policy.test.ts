// The debate dry run (configs/debate.dry-run.yaml) played through the recipe's SIMULATED policy, as the dry-run
// model server answers from it: every eval debate of the config, every role served by the base checkpoint's policy.
// What a user reads off the dry run must match what the papers report (Du et al. 2023; Subramaniam et al. 2025,
// "Multiagent Finetuning"): debating does not lower accuracy — the last round's vote is at least round 0's.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Chat } from '../../../../../activities/llm/types';
import type { DebateRecord } from '../../../../../activities/recipes/debate';
import { recipeDefinition } from '../../../../../activities/recipes/registry';
import { recipeRuntime } from '../../../../../activities/recipes/runtime';
import { loadConfig } from '../../../../../configs/load';
import { CONFIGS } from '../../../../helpers/config';

const DRY_RUN = path.join(CONFIGS, 'debate.dry-run.yaml');

/** Every role of the society answered by one simulated policy, as `server.kind: simulator` serves iteration 0. */
function simulatedChats(
  roles: readonly string[],
  model: string,
  policy: ReturnType<ReturnType<typeof recipeDefinition>['simulator']['policy']>,
) {
  const chat: Chat = async (call) => {
    const { seed, temperature, maxTokens } = call.decoding;
    const r = policy({ model, messages: call.messages, n: 1, seed, temperature, maxTokens });
    const usage = { promptTokens: r.promptTokens, completionTokens: r.completionTokens.reduce((a, b) => a + b, 0) };
    return { texts: r.texts, finishReasons: r.texts.map(() => 'stop'), usage, cached: false };
  };
  return Object.fromEntries(roles.map((role) => [role, chat]));
}

/** The dry run's eval debates with the config's seed changed (`--set seed=N`), and their metrics. */
async function dryRun(seed: number): Promise<{ records: DebateRecord[]; m: Record<string, number> }> {
  const { config } = loadConfig(DRY_RUN, { overrides: [`seed=${seed}`] });
  const recipe = recipeDefinition(config.recipe.name);
  const runtime = await recipeRuntime(config);
  const cfg = config.recipe as { evalTasks: string; dataset: string };
  const odds = JSON.parse(readFileSync(path.join(config.baseCheckpoint, 'simulated-policy.json'), 'utf8'));
  const policy = recipe.simulator.policy([{ file: cfg.evalTasks, kind: cfg.dataset }], odds);
  const chats = simulatedChats(Object.keys(recipe.roles(config.recipe)), `sim-${path.basename(config.baseCheckpoint)}`, policy);
  const records: DebateRecord[] = [];
  for (let taskIndex = 0; taskIndex < runtime.taskCount('eval'); taskIndex++)
    for (let sampleIndex = 0; sampleIndex < runtime.samplesPerTask('eval'); sampleIndex++)
      records.push((await runtime.runTask({ split: 'eval', taskIndex, sampleIndex, chats, services: {} })) as DebateRecord);
  return { records, m: runtime.metrics(records) };
}

describe('the debate dry run (simulated agents)', () => {
  it("the last round's vote is at least as accurate as round 0's, and no agent answers the prompt's format hint", async () => {
    const { config } = loadConfig(DRY_RUN);
    // The config's own seed, and a few a user may set.
    for (const seed of [config.seed, 1, 2, 3]) {
      const { records, m } = await dryRun(seed);
      const answers = records.flatMap((r) => r.agents.flatMap((a) => a.answers));
      expect(
        answers.filter((a) => a === 'answer'),
        `seed ${seed}`,
      ).toEqual([]);
      expect(
        answers.filter((a) => a === undefined),
        `seed ${seed}`,
      ).toEqual([]); // the policy always boxes an answer
      expect(m.round_1_accuracy).toBe(m.accuracy); // the debate's answer is the last round's vote
      expect(m.round_1_accuracy, `seed ${seed}: ${JSON.stringify(m)}`).toBeGreaterThanOrEqual(m.round_0_accuracy);
    }
  });
});
