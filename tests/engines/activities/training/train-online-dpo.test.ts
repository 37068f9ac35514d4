// The train stage with trainer {kind: trl, method: online_dpo} on CollabLLM's `rl` rows: it starts the recipe's
// reward service (the real one: simulator and judges through the config's external roles) for the trainer, and real
// TRL on the CPU trains the tiny Llama with every completion's reward coming from futures the service played.
import { MockActivityEnvironment } from '@temporalio/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFor } from '../../../../activities/artifacts/store';
import type { TrainResult } from '../../../../contracts/run';
import { createCollabSimulatedPolicy } from '../../../../activities/recipes/collabllm/simulated-policy';
import { loadCollabTasks } from '../../../../activities/recipes/collabllm/tasks';
import { CHECKPOINT_MANIFEST } from '../../../../activities/serving/checkpoint-identity';
import { startOpenAICompatibleServer, type RunningServer } from '../../../../activities/serving/openai-compatible-server';
import { trainCheckpoint } from '../../../../activities/stages/train-checkpoint';
import { CONFIGS, tempStateDir, testConfig } from '../../../helpers/config';
import { realCpuLoop, tinyBaseCheckpoint } from '../../../helpers/tiny-model';

const TASKS = path.join(CONFIGS, 'tasks/collabllm/math.jsonl');
const tasks = loadCollabTasks(TASKS, 'math');
let helper: RunningServer;
const asked: string[] = [];

beforeAll(async () => {
  const policy = createCollabSimulatedPolicy({ tasks, skill: 0.6 });
  helper = await startOpenAICompatibleServer({
    modelName: 'helper',
    policy: (req) => {
      asked.push(JSON.stringify(req));
      return policy(req);
    },
  });
});
afterAll(async () => {
  await helper?.close();
});

describe('train stage, online DPO (TRL) with the CollabLLM reward service', () => {
  it('starts the reward service for the trainer and trains on its rewards', async () => {
    const stateDir = tempStateDir();
    const base = await tinyBaseCheckpoint(stateDir);
    const external = { kind: 'external', endpoint: { baseUrl: `${helper.url}/v1`, model: 'helper', maxConcurrency: 8 } };
    const config = testConfig(stateDir, (c) => {
      realCpuLoop(base, {
        method: 'online_dpo',
        maxSteps: 1,
        batchSize: 2,
        maxLength: 256,
        onlineDpo: { futures: 1, maxNewTokens: 8 },
      })(c);
      c.iterations = 1;
      c.recipe = { name: 'collabllm', task: 'math', evalTasks: TASKS, trainTasks: TASKS, limit: 2, maxMessages: 6 };
      c.models = { user: external, judge: external, extractor: external };
    });
    // The data stage's `rl` rows (collabllm/data.ts collabMultiturnRows): a prefix ending in a user turn, the task.
    const rl = await storeFor(config).putJsonl(
      tasks.slice(0, 2).map((t, i) => ({
        prompt: [{ role: 'user', content: t.prompt }],
        completion: 'Could you tell me more?',
        conv_id: i,
        turn_id: 1,
        score: 0.1,
        single_turn_prompt: t.prompt,
        single_turn_completion: t.answer,
        single_turn_metadata: { task_id: t.id, sample: 0 },
      })),
    );
    const result: TrainResult = await new MockActivityEnvironment().run(trainCheckpoint, {
      runName: 'online-dpo',
      iteration: 0,
      config,
      checkpoint: base,
      data: { rl },
    });
    expect(result.steps).toBe(1);
    const lineage = JSON.parse(readFileSync(path.join(result.checkpoint, CHECKPOINT_MANIFEST), 'utf8'));
    expect(lineage).toMatchObject({ method: 'online_dpo', trainer: 'trl', dataset: { sha256: rl.sha256 } });
    const log = readFileSync(path.join(stateDir, 'logs', 'online-dpo', 'train-iter-0.log'), 'utf8');
    expect(log).toMatch(/reward service for collabllm at http:\/\/127\.0\.0\.1:\d+/);
    expect(log).not.toMatch(/reward service \//); // no request of the trainer's failed
    // The completions' rewards reached TRL: the mean it logs is the service's score (the simulated judges'), not
    // the NaN-as-0 of an unscored completion; the simulated user and the judges were asked.
    const scores = Number(/'objective\/scores': '([^']+)'/.exec(log)?.[1]);
    expect(scores).toBeGreaterThan(0);
    expect(asked.length).toBeGreaterThanOrEqual(4);
  }, 600_000);
});
