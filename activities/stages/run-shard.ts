// Runs one shard of conversations with bounded concurrency, heartbeating progress, and writes the records to the
// artifact store; only the ref goes back to the workflow. Every LLM call goes through the durable cache, so a
// retried shard (after a crash, a kill or a flaky endpoint) re-sends only the calls that never succeeded.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { setMaxListeners } from 'node:events';
import type { DetailsWithWork } from '../../contracts/progress';
import { shardKey, type ShardInput, type ShardResult } from '../../contracts/run';
import { generationServices } from '../generation/services';
import { shardConversations } from '../generation/plan-shards';
import { storeFor } from '../artifacts/store';
import { requestCacheFor } from '../llm/cache';
import { createChat } from '../llm/client';
import { rolePrices, spendByRole } from '../llm/spend';
import { budgetSpender } from '../llm/budget-ledger';
import { recipeNeeds, recipeOf, recipeRuntime } from '../recipes/runtime';
import { countedRoleChats, roleEndpoints, totalUsage } from '../llm/roles';
import { startHeartbeat } from '../heartbeat';
import { llmCounts } from '../progress/llm-counts';
import { progressMeter } from '../progress/meter';
import { reportProgress } from '../progress/report';

/** The shard's heartbeat details: its counts, and its measurement for the progress model (`work`). */
export interface ShardProgress extends DetailsWithWork {
  done: number;
  total: number;
  calls: number;
  cachedCalls: number;
}

export async function runShard(input: ShardInput): Promise<ShardResult> {
  const { config, shard } = input;
  const ctx = Context.current();
  const signal = ctx.cancellationSignal;
  setMaxListeners(0, signal); // every in-flight request listens for cancellation
  const runtime = await recipeRuntime(config);
  const declared = recipeOf(config).roles(config.recipe);
  const cache = requestCacheFor(config);
  const chatOpts = { cache, llm: config.llm, signal };
  const budget = await budgetSpender(input);
  const prices = rolePrices(config, declared);
  const { chats, usage: byRole } = countedRoleChats(roleEndpoints(config, declared, input.agent, input.roles), (endpoint, usage, role) =>
    createChat({ ...chatOpts, endpoint, usage, role, budget: budget?.forRole(prices[role]) }),
  );
  const usage = () => totalUsage(Object.values(byRole));
  const store = storeFor(config);
  const services = generationServices(store, recipeNeeds(config));

  const jobs = [...shardConversations(shard, runtime.samplesPerTask(shard.split))];

  const records: unknown[] = new Array(jobs.length);
  const progress: ShardProgress = { done: 0, total: jobs.length, calls: 0, cachedCalls: 0 };
  // The beats carry this very object, so its counts are current at every beat without a heartbeat per
  // conversation (each one is encoded and handed to the Temporal core: a tenth of a millisecond per LLM call at
  // 512 in flight, `npm run bench` llm-cpu); the counts and `work` are read by `collab-loop status` and the UI.
  const hb = startHeartbeat(progress);
  const counts = () => ({ done: progress.done, total: jobs.length, ...llmCounts(byRole, prices) });
  const unit = runtime.progressUnit ?? 'conversations';
  const report = reportProgress(progressMeter({ key: shardKey(shard), stage: 'generate', unit }, counts), (work) => {
    progress.work = work;
  });
  const errors: unknown[] = [];
  let next = 0;
  const lane = async () => {
    // After a failure, stop starting conversations but let those in flight finish: their answers land in the
    // cache, so the retry does not pay for them again.
    while (next < jobs.length && errors.length === 0 && !signal.aborted) {
      const i = next++;
      try {
        records[i] = await runtime.runTask({ split: shard.split, ...jobs[i], chats, services });
        progress.done++;
        const u = usage();
        progress.calls = u.calls;
        progress.cachedCalls = u.cachedCalls;
      } catch (err) {
        errors.push(err);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(config.generation.concurrency, jobs.length) }, lane));
  } finally {
    report.stop();
    hb.stop();
  }
  if (signal.aborted) throw signal.reason; // a CancelledFailure: the stage was stopped
  if (errors.length) {
    // A non-retryable failure (bad key, wrong model) wins: retrying the shard cannot fix it.
    const fatal = errors.find((e) => e instanceof ApplicationFailure && e.nonRetryable);
    throw fatal ?? errors[0];
  }
  const ref = await store.putJsonl(records);
  await budget?.finish();
  const u = usage();
  return {
    records: ref,
    conversations: records.length,
    calls: u.calls,
    cachedCalls: u.cachedCalls,
    tokens: records.reduce<number>((sum, r) => sum + runtime.recordTokens(r), 0),
    spend: spendByRole(byRole, config, declared),
    work: counts(),
    unit,
  };
}
