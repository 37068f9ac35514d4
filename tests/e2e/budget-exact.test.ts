// Exact budgets: a run with `budget.tokens: N` whose shards all run at once stops by N plus what the calls in
// flight may take (each call reserves its estimate before it is sent: activities/llm/budget-ledger.ts), not after
// the whole first wave of shards; it waits as needs attention (BudgetReached) and `retry --set budget.tokens=…`
// completes it. Once with in-process workers (the worker's own ledger), once with two `collab-loop worker`
// processes that share the ledger through llm.sharedLimits on a real redis-server. The endpoint counts what the
// calls cost (the tokens of every answer it gives).
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../activities/serving/openai-compatible-server';
import { loopWorkflowId } from '../../contracts/messages';
import { TASK_QUEUES } from '../../contracts/run';
import { type LocalRedis, startLocalRedis } from '../../cli/stack/redis';
import { trainingLoop } from '../../workflows/loop';
import { DEFAULT_PARALLEL_SHARDS } from '../../contracts/run';
import { cli, startCliWorker } from '../helpers/cli';
import { tempStateDir, testConfig } from '../helpers/config';
import { evaluateOn, startCountingEndpoint } from '../helpers/endpoint';
import { startDevServer } from '../helpers/temporal';
import { waitForAttention } from '../helpers/wait';
import { withWorkers } from '../helpers/workers';

let env: TestWorkflowEnvironment;
let redis: LocalRedis;
let endpoint: RunningServer;
let paid = 0;
beforeAll(async () => {
  [env, redis, endpoint] = await Promise.all([
    startDevServer(),
    startLocalRedis(),
    startCountingEndpoint({ latencyMs: 20, onTokens: (t) => (paid += t) }),
  ]);
});
afterAll(async () => {
  await env?.teardown();
  await endpoint?.close();
  await redis?.stop();
});

const BUDGET = 6000;
/** The most any call may generate: the agents' max_tokens (the answer extractor's is 32). */
const MAX_TOKENS = 64;

/** 24 shards of one question × 2 samples, 16 of them at once, against a budget far below what they cost. */
function budgetConfig(shared: boolean) {
  return testConfig(tempStateDir('budget-exact-'), (c) => {
    evaluateOn(endpoint, c, 64);
    c.recipe.limit = 24;
    c.recipe.maxTokens = MAX_TOKENS;
    // One question × its 2 samples per shard: identical calls of a question (temperature 0) share one request in
    // their process, where two shards on two workers would each pay for it.
    c.generation = { shardSize: 2, concurrency: 2, heartbeatTimeoutSeconds: 10 };
    c.budget = { tokens: BUDGET };
    if (shared) c.llm = { ...c.llm, sharedLimits: { redis: redis.url } };
  });
}

/** Runs the loop to its stop for the budget, checks what was paid, then raises the budget and lets it finish. */
async function stopsWithinBudgetThenContinues(runName: string, config: ReturnType<typeof budgetConfig>) {
  paid = 0;
  endpoint.resetStats();
  const handle = await env.client.workflow.start(trainingLoop, {
    taskQueue: TASK_QUEUES.workflows,
    workflowId: loopWorkflowId(runName),
    args: [{ runName, config, evalOnly: true }],
  });
  const waiting = await waitForAttention(env.client, runName, 0, 150_000);
  expect(waiting.attention).toMatchObject({ stage: 'generate', failureType: 'BudgetReached' });
  expect(waiting.attention!.error).toMatch(new RegExp(`^budget reached: the run has spent \\d+ tokens of budget\\.tokens ${BUDGET}`));
  expect(waiting.attention!.error).toContain(`collab-loop retry ${runName} --set budget.tokens=N`);
  // Every shard has ended (the stage waits for all of them): nothing is in flight any more.
  const callsInFlight = config.generation.concurrency * Math.min(DEFAULT_PARALLEL_SHARDS, waiting.shards.total);
  const atStop = paid;
  expect(atStop, `paid ${atStop} tokens for a budget of ${BUDGET}`).toBeLessThanOrEqual(BUDGET + callsInFlight * MAX_TOKENS);
  expect(atStop).toBeGreaterThan(BUDGET / 2); // it ran until the budget, not stopped at the first call
  expect(waiting.shards.done).toBeLessThan(waiting.shards.total);

  const retry = await cli(['retry', runName, '--set', 'budget.tokens=100000000'], { TEMPORAL_ADDRESS: env.address });
  expect(retry.all).toContain('retrying from stage generate');
  const result = await handle.result();
  const it0 = result.iterations[0];
  expect(it0.metrics).toBeTruthy();
  // All of the run's calls counted, those paid before the stop (answered from the cache now) included.
  expect(it0.spend!.total.tokens).toBeGreaterThanOrEqual(paid);
  expect(paid).toBeGreaterThan(atStop);
  expect(endpoint.stats().duplicates).toBe(0); // nothing paid twice
}

describe('exact budgets', () => {
  it('a token budget stops the run by the budget plus the calls in flight; retry --set budget.tokens completes it', async () => {
    await withWorkers(env, () => stopsWithinBudgetThenContinues('budget-exact', budgetConfig(false)));
  }, 400_000);

  it('two worker processes sharing llm.sharedLimits keep one budget between them', async () => {
    const workers = await Promise.all([
      startCliWorker({ TEMPORAL_ADDRESS: env.address }),
      startCliWorker({ TEMPORAL_ADDRESS: env.address }),
    ]);
    try {
      await stopsWithinBudgetThenContinues('budget-exact-shared', budgetConfig(true));
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }
  }, 400_000);
});
