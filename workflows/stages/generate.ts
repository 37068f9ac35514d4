// generate: plan the shards, then run them (and score them on the sandbox queue where the recipe needs it), a few
// shard activities at a time; a retry runs only the shards still missing.
import { DEFAULT_PARALLEL_SHARDS, shardKey, type LlmUsage, type ShardSpec, type StageStats } from '../../contracts/run';
import { scheduled, stageActivities } from '../activity-proxies';
import { checkBudget, ledgerInput, spendReport } from '../budget';
import { publish, summary, tellLoop } from '../iteration-progress';
import {
  configInput,
  earlier,
  servedEndpoints,
  stageContext,
  wantsTrainData,
  type IterationPlan,
  type IterationState,
} from '../iteration-state';
import { legacyNeeds } from '../legacy-needs';
import { planSummary, shardSummary } from '../stage-summaries';

const sumUsage = (rs: Array<Partial<LlmUsage>>): LlmUsage => ({
  calls: rs.reduce((a, r) => a + (r.calls ?? 0), 0),
  cachedCalls: rs.reduce((a, r) => a + (r.cachedCalls ?? 0), 0),
  tokens: rs.reduce((a, r) => a + (r.tokens ?? 0), 0),
});

/** The shards and the recipe's needs; iterations started before recipes declared their needs decided by name. */
async function plan(s: IterationState): Promise<IterationPlan> {
  const cpu = stageActivities(s.config).cpu;
  const input = { ...configInput(s), evalOnly: !wantsTrainData(s) };
  if (s.patches.declaresNeeds) return scheduled(cpu.planIteration, summary(s, planSummary(s.config)), input);
  return {
    shards: await scheduled(cpu.planShards, summary(s, planSummary(s.config)), input),
    needs: legacyNeeds(s.input.config.recipe.name),
  };
}

export async function generate(s: IterationState, stats: StageStats): Promise<void> {
  if (!s.plan) {
    s.plan = await plan(s);
    if (s.patches.planToLoop) tellLoop(s);
  }
  const { shards, needs } = s.plan;
  const pending = shards.filter((x) => !s.shardResults.has(shardKey(x)));
  s.status.shards = { done: shards.length - pending.length, total: shards.length };
  if (s.patches.exactBudgets) s.status.spend = spendReport(s); // shown even when the first shard stops for the budget
  publish(s); // the details say how many shards of how many conversations, before the first one finishes
  const perSplit = (shard: ShardSpec) => shards.filter((x) => x.split === shard.split).length;
  const { llm, sandbox } = stageActivities(s.config);
  let next = 0;
  const lane = async () => {
    while (next < pending.length) {
      checkBudget(s); // at a shard boundary: shards in flight finish, no new one starts
      const shard = pending[next++];
      const deployed = earlier(s.deployed, 'the deployed servers');
      let r = await scheduled(llm.runShard, summary(s, shardSummary('shard', shard, perSplit(shard))), {
        ...stageContext(s),
        shard,
        agent: deployed.endpoint,
        ...servedEndpoints(deployed),
        ...ledgerInput(s, shardKey(shard)),
      });
      if (needs.sandboxScoring)
        r = await scheduled(sandbox.scoreShard, summary(s, shardSummary('score shard', shard, perSplit(shard))), {
          ...stageContext(s),
          split: shard.split,
          shard: r,
        });
      s.shardResults.set(shardKey(shard), r);
      s.status.shards.done++;
      s.status.conversations.done += r.conversations;
      s.status.tokens += r.tokens;
      Object.assign(stats, sumUsage([...s.shardResults.values()]));
      if (s.patches.budgets) s.status.spend = spendReport(s);
      publish(s);
      if (s.patches.liveProgress) tellLoop(s, shardKey(shard));
    }
  };
  // Each shard runs many conversations at once; configs written before parallelShards run 16 shards at a time.
  const parallel = s.config.generation.parallelShards ?? DEFAULT_PARALLEL_SHARDS;
  const settled = await Promise.allSettled(Array.from({ length: Math.min(parallel, pending.length) }, lane));
  const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
  if (failed) throw failed.reason;
}
