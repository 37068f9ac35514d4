// build-data: the training datasets from the train split's records. Scorer roles (SWEET-RL's learned critic, sweet_rl
// README "SWEET-RL") are trained on this iteration's records first, then served, and the data builder ranks with them. A retry
// redoes these steps cheaply: same rows, a finished trainer returns at once, a healthy server is reused.
import { patched } from '@temporalio/workflow';
import { PATCHES } from '../patches';
import type { RecipeNeeds } from '../../contracts/activities';
import type { ScorerModel, ShardResult, StageStats } from '../../contracts/run';
import { scheduled, stageActivities } from '../activity-proxies';
import { checkBudget, ledgerInput, spendReport } from '../budget';
import { summary } from '../iteration-progress';
import {
  conversationsIn,
  earlier,
  recordsOf,
  servedCheckpoint,
  servedEndpoints,
  stageContext,
  wantsTrainData,
  type IterationState,
} from '../iteration-state';
import { datasetFor } from '../role-lineage';
import { buildDataSummary, scorerDataSummary, serveScorersSummary, trainSummary } from '../stage-summaries';

export async function buildData(s: IterationState, stats: StageStats): Promise<void> {
  if (!wantsTrainData(s)) return;
  s.trainedRoles.clear(); // new data: every role trains again (a finished trainer on the same data returns at once)
  const shards = recordsOf(s, 'train');
  const text = buildDataSummary(s.config, conversationsIn(shards));
  const { needs } = earlier(s.plan, 'the shard plan');
  if (needs.modelsForData) checkBudget(s);
  const scorers = await trainedScorers(s, needs, shards);
  const { llm, cpu } = stageActivities(s.config);
  const context = { ...stageContext(s), checkpoint: s.checkpoint, shards };
  if (needs.modelsForData) {
    const deployed = earlier(s.deployed, 'the deployed servers');
    s.data = await scheduled(llm.buildTrainingData, summary(s, text), {
      ...context,
      agent: deployed.endpoint,
      ...servedEndpoints(deployed),
      ...(scorers ? { scorers } : {}),
      ...ledgerInput(s, 'build-data'),
    });
  } else s.data = await scheduled(cpu.buildTrainingData, summary(s, text), context);
  if (s.data.usage) Object.assign(stats, s.data.usage);
  if (s.patches.budgets) s.status.spend = spendReport(s);
}

/** The recipe's scorer roles (RecipeNeeds.scorers), trained on this iteration's rows and served; none when the
 *  recipe has none, nothing trains, or the iteration started before trained scorers existed. */
async function trainedScorers(
  s: IterationState,
  needs: RecipeNeeds,
  shards: ShardResult[],
): Promise<Record<string, ScorerModel> | undefined> {
  const deployed = s.deployed;
  const roles = needs.scorers?.length && s.config.trainer && deployed?.roles ? needs.scorers : [];
  if (!deployed || !roles.length || !patched(PATCHES.trainedScorers.id)) return undefined;
  const { cpu, train, deploy } = stageActivities(s.config);
  const rows = await scheduled(cpu.buildScorerData, summary(s, scorerDataSummary(roles, conversationsIn(shards))), {
    ...stageContext(s),
    checkpoint: s.checkpoint,
    shards,
  });
  await Promise.all(
    roles
      .filter((role) => datasetFor(rows.roles[role], s.config))
      .map(async (role) => {
        const result = await scheduled(train(role).trainCheckpoint, summary(s, trainSummary(s.config, role)), {
          ...stageContext(s),
          checkpoint: servedCheckpoint(deployed, role),
          data: rows.roles[role],
          role,
        });
        s.trainedRoles.set(role, result);
      }),
  );
  const checkpoints = Object.fromEntries(roles.map((r) => [r, s.trainedRoles.get(r)?.checkpoint ?? servedCheckpoint(deployed, r)]));
  const scorers = await scheduled(deploy.serveScorers, summary(s, serveScorersSummary(roles)), { ...stageContext(s), checkpoints });
  for (const r of roles) scorers[r].data = rows.roles[r];
  return scorers;
}
