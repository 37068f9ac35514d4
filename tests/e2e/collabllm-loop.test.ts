// CollabLLM on a real Temporal dev server, every model SIMULATED (the recipe's seeded stand-in policy, no weights):
//   - two iterations with the stand-in trainer: the assistant's chain, the frozen roles, the datasets (DPO pairs and
//     the published multiturn rows) and the metrics;
//   - SIGKILL of the worker while it builds training conversations: no request is paid twice except those in flight;
//   - a judge endpoint answering 20 % of requests with 429 / 500 / resets: every candidate's reward equals the one a
//     fault-free run computes, so no score ever came from a failed judge call;
//   - online RL: trainer {kind: verl, method: grpo} run by a STAND-IN verl main_ppo (tests/fixtures/stand-in-verl; the
//     real one needs GPUs) that loads our interaction and reward manager, with the train stage's reward service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startOpenAICompatibleServer, type FaultOptions, type RunningServer } from '../../activities/serving/openai-compatible-server';
import { createCollabSimulatedPolicy } from '../../activities/recipes/collabllm/simulated-policy';
import { loadCollabTasks } from '../../activities/recipes/collabllm/tasks';
import type { CollabBuildRecord } from '../../activities/recipes/collabllm/conversation';
import { trainingLoop } from '../../workflows/loop';
import { loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES, type IterationSummary, type LoopConfig } from '../../contracts/run';
import { startDevServer } from '../helpers/temporal';
import { runLoop } from '../helpers/run-loop';
import { CONFIGS, tempStateDir, testConfig } from '../helpers/config';
import { cliProcess } from '../helpers/cli';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { CHECKPOINT_MANIFEST } from '../../activities/serving/checkpoint-identity';
import { artifactPath, readJsonl } from '../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const TASKS = path.join(CONFIGS, 'tasks/collabllm/math.jsonl');
const recipe = (limit: number) => ({ name: 'collabllm', task: 'math', evalTasks: TASKS, trainTasks: TASKS, limit, maxMessages: 6 });

function simulatedEndpoint(o: { model: string; latencyMs?: number; capacity?: number; faults?: FaultOptions; onAnswer?: () => void }) {
  const policy = createCollabSimulatedPolicy({ tasks: loadCollabTasks(TASKS, 'math'), skill: 0.6 });
  return startOpenAICompatibleServer({
    modelName: o.model,
    latencyMs: o.latencyMs,
    capacity: o.capacity,
    faults: o.faults,
    policy: (req) => {
      o.onAnswer?.();
      return policy(req);
    },
  });
}
const endpoint = (s: RunningServer, model: string, maxConcurrency = 8) => ({ baseUrl: `${s.url}/v1`, model, maxConcurrency });

/** Every built conversation of an iteration (the train shards the build-data manifest lists). */
function builtRecords(it: IterationSummary): CollabBuildRecord[] {
  const m = JSON.parse(readFileSync(artifactPath(it.manifests['build-data']), 'utf8')) as {
    inputs: Record<string, { uri: string }>;
  };
  return Object.entries(m.inputs)
    .filter(([k]) => k.startsWith('train_shard_'))
    .flatMap(([, ref]) => readJsonl<CollabBuildRecord>(ref as never));
}
const rewards = (records: CollabBuildRecord[]) =>
  Object.fromEntries(
    records.flatMap((r) =>
      r.turns.flatMap((t, i) => t.candidates.map((c, k) => [`${r.taskId}/${r.sampleIndex}/${i}/${k}`, c.score ?? null])),
    ),
  );

describe('CollabLLM loop', () => {
  it('two iterations: the trained assistant, frozen user / judge / extractor, DPO pairs and the multiturn rows', async () => {
    const stateDir = tempStateDir();
    const config = testConfig(stateDir, (c) => {
      c.recipe = recipe(4);
      c.trainer.method = 'dpo';
      c.trainer.dataFormat = 'trl';
    });
    const result = await runLoop(env, 'collab', config);
    const [it0, it1] = result.iterations;
    for (const k of ['task_success', 'accuracy', 'interactivity', 'token_amount_k', 'missing_scores', 'simulator_failures'])
      expect(it0.metrics[k], k).toBeTypeOf('number');
    expect(it0.metrics.conversations).toBe(4);
    expect(it0.models!.assistant).toMatchObject({ kind: 'trained', nextCheckpoint: it1.checkpoint });
    for (const role of ['user', 'judge', 'extractor'])
      expect(it1.models![role]).toMatchObject({ kind: 'frozen', checkpoint: config.baseCheckpoint });
    // Built conversations: every state's candidates kept with their futures; the DPO rows are TRL preference rows.
    const built = builtRecords(it0);
    expect(built).toHaveLength(4);
    for (const r of built)
      for (const t of r.turns) {
        expect(t.candidates).toHaveLength(2);
        for (const c of t.candidates) expect(c.futures).toHaveLength(3);
      }
    const dpo = readJsonl<Record<string, unknown>>(it0.datasets!.dpo!);
    expect(dpo.length).toBeGreaterThan(0);
    for (const row of dpo) expect(Object.keys(row).sort()).toEqual(['chosen', 'prompt', 'rejected']);
    const manifest = JSON.parse(readFileSync(artifactPath(it0.manifests['build-data']), 'utf8')) as {
      outputs: { multiturn: { uri: string; rows: number }; multiturn_rows: number };
    };
    const rows = readJsonl<Record<string, unknown>>(manifest.outputs.multiturn as never);
    expect(rows).toHaveLength(manifest.outputs.multiturn_rows);
    expect(Object.keys(rows[0]).sort()).toEqual(
      [
        'completion',
        'conv_id',
        'prompt',
        'rewards',
        'score',
        'sessions',
        'single_turn_completion',
        'single_turn_metadata',
        'single_turn_prompt',
        'turn_id',
      ].sort(),
    );
  });

  it('SIGKILL while building training data: no request paid twice except those in flight', async () => {
    let answers = 0;
    let kill: (() => void) | undefined;
    const server = await simulatedEndpoint({
      model: 'collab-model',
      latencyMs: 50,
      capacity: 8,
      onAnswer: () => ++answers === 150 && kill?.(),
    });
    try {
      const stateDir = tempStateDir();
      const config = testConfig(stateDir, (c) => {
        c.iterations = 1;
        delete c.trainer;
        c.recipe = { ...recipe(4), evalTasks: path.join(CONFIGS, 'tasks/collabllm/math.jsonl'), limit: 4 };
        c.server = { kind: 'external', endpoint: endpoint(server, 'collab-model') };
        c.generation = { shardSize: 2, concurrency: 8, heartbeatTimeoutSeconds: 3 };
      });
      const workerEnv = { TEMPORAL_ADDRESS: env.address };
      const first = cliProcess(['worker'], workerEnv);
      kill = () => first.kill('SIGKILL');
      const runName = 'collab-kill';
      const handle = await env.client.workflow.start(trainingLoop, {
        taskQueue: TASK_QUEUES.workflows,
        workflowId: loopWorkflowId(runName),
        args: [{ runName, config }],
      });
      await first;
      expect(first.killed).toBe(true);
      const atKill = server.stats();
      const second = cliProcess(['worker'], workerEnv);
      try {
        const result = await handle.result();
        const stats = server.stats();
        expect(stats.completed).toBeGreaterThan(atKill.completed); // it went on after the kill…
        expect(stats.duplicates).toBeLessThanOrEqual(8); // …paying again only what was in flight (maxConcurrency 8)
        expect(builtRecords(result.iterations[0])).toHaveLength(4);
      } finally {
        second.kill('SIGTERM');
        await second;
      }
    } finally {
      await server.close();
    }
  });

  it('a judge failing 20 % of requests never scores a candidate: rewards equal a fault-free run', async () => {
    const policyServer = await simulatedEndpoint({ model: 'policy' });
    const cleanJudge = await simulatedEndpoint({ model: 'judge' });
    const flakyJudge = await simulatedEndpoint({
      model: 'judge',
      faults: { rate: 0.2, kinds: ['429', '500', 'reset'], seed: 5, retryAfterMs: 20 },
    });
    try {
      const run = async (judge: RunningServer, name: string) => {
        const stateDir = tempStateDir();
        const config: LoopConfig = testConfig(stateDir, (c) => {
          c.iterations = 1;
          delete c.trainer;
          c.recipe = recipe(3);
          c.server = { kind: 'external', endpoint: endpoint(policyServer, 'policy') };
          c.models = { judge: { kind: 'external', endpoint: endpoint(judge, 'judge') } };
          c.llm = { callRetries: 1, maxRetryDelaySeconds: 1 };
        });
        return builtRecords((await runLoop(env, name, config)).iterations[0]);
      };
      const clean = await run(cleanJudge, 'collab-judge-clean');
      const flaky = await run(flakyJudge, 'collab-judge-flaky');
      expect(flakyJudge.stats().faulted).toBeGreaterThan(0);
      expect(rewards(flaky)).toEqual(rewards(clean));
      expect(Object.values(rewards(clean)).some((s) => s !== null)).toBe(true);
    } finally {
      await Promise.all([policyServer.close(), cleanJudge.close(), flakyJudge.close()]);
    }
  });

  it('online RL: verl GRPO (STAND-IN main_ppo) on the multiturn prompts, futures and rewards from the reward service', async () => {
    const helpers = await simulatedEndpoint({ model: 'helper' });
    try {
      const stateDir = tempStateDir();
      const external = { kind: 'external', endpoint: endpoint(helpers, 'helper') };
      const config = testConfig(stateDir, (c) => {
        c.iterations = 1;
        c.recipe = recipe(3);
        c.models = { user: external, judge: external, extractor: external };
        c.trainer = {
          kind: 'verl',
          method: 'grpo',
          maxSteps: 2,
          saveSteps: 1,
          env: { PYTHONPATH: path.join(PROJECT_ROOT, 'tests', 'fixtures', 'stand-in-verl') },
          grpo: { rolloutN: 2, numRepeatRollouts: 2, trainBatchSize: 2 },
          heartbeatTimeoutSeconds: 30,
        };
      });
      const [it0] = (await runLoop(env, 'collab-grpo', config)).iterations;
      const next = it0.models!.assistant.nextCheckpoint!;
      // The checkpoint is the actor of main_ppo's last step, merged; its lineage names the RL prompts it came from.
      expect(JSON.parse(readFileSync(path.join(next, 'stand-in-grpo.json'), 'utf8'))).toMatchObject({ step: 2 });
      const lineage = JSON.parse(readFileSync(path.join(next, CHECKPOINT_MANIFEST), 'utf8'));
      const built = JSON.parse(readFileSync(artifactPath(it0.manifests['build-data']), 'utf8')).outputs;
      expect(lineage).toMatchObject({ method: 'grpo', trainer: 'verl', steps: 2, dataset: { sha256: built.rl.sha256 } });
      expect(built.rl.sha256).toBe(built.multiturn.sha256); // the published rows are the RL prompts
      expect(lineage.argv[1].slice(0, 3)).toEqual([expect.stringContaining('python'), '-m', 'verl.trainer.main_ppo']);
      // Every response (2 steps × 2 prompts × 2 samples) had its futures played with our simulator and was rewarded.
      const work = path.join(stateDir, 'train', 'collab-grpo', 'iter-0', 'work');
      const rows = readFileSync(path.join(work, 'stand-in-rewards.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (l) =>
            JSON.parse(l) as { uid: string; reward: number; scored: boolean; futures: Array<Array<{ role: string; content: string }>> },
        );
      expect(rows).toHaveLength(8);
      for (const r of rows) {
        expect(r.futures).toHaveLength(2);
        for (const f of r.futures) {
          const prompt = f.findIndex((m) => m.role === 'assistant');
          expect(f[prompt + 1]).toMatchObject({ role: 'user', content: expect.any(String) });
          expect(f[prompt + 1].content).not.toBe('');
        }
        expect(Number.isFinite(r.reward)).toBe(true);
      }
      expect(rows.some((r) => r.scored)).toBe(true);
      // An unscored response carries its group's mean (zero advantage), never a made-up 0 of its own.
      for (const r of rows.filter((x) => !x.scored)) {
        const scored = rows.filter((x) => x.uid === r.uid && x.scored);
        if (scored.length) expect(r.reward).toBeCloseTo(scored.reduce((a, x) => a + x.reward, 0) / scored.length, 6);
      }
      // The service ran for the stage only: its address (in the train log) no longer answers.
      const log = readFileSync(path.join(stateDir, 'logs', 'collab-grpo', 'train-iter-0.log'), 'utf8');
      const url = new URL(/reward service for collabllm at (\S+)/.exec(log)![1]);
      expect(log).not.toMatch(/reward service \/(score|user-turn):/);
      const refused = await new Promise<boolean>((resolve) => {
        const sock = net.connect(Number(url.port), url.hostname);
        sock.once('connect', () => {
          sock.destroy();
          resolve(false);
        });
        sock.once('error', () => resolve(true));
      });
      expect(refused).toBe(true);
      expect(existsSync(path.join(stateDir, 'train', 'collab-grpo', 'iter-0', 'data', 'rl_train.parquet'))).toBe(true);
    } finally {
      await helpers.close();
    }
  });
});
