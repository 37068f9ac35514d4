// deploy: serve the iteration's checkpoints (one server per distinct checkpoint of the served roles) and probe them.
import type { StageStats } from '../../contracts/run';
import { scheduled, stageActivities } from '../activity-proxies';
import { summary } from '../iteration-progress';
import { stageContext, type IterationState } from '../iteration-state';
import { deploySummary, undeploySummary } from '../stage-summaries';

export async function deploy(s: IterationState, stats: StageStats): Promise<void> {
  const { checkpoint, checkpoints } = s;
  s.deployed = await scheduled(
    stageActivities(s.config).deploy.deployCheckpoint,
    summary(s, deploySummary(s.config, checkpoint, checkpoints)),
    {
      ...stageContext(s),
      checkpoint,
      ...(s.patches.modelRoles ? { checkpoints: checkpoints ?? {} } : {}),
    },
  );
  s.undeployed = false;
  s.released = false;
  const probe = s.deployed.served?.probe;
  if (probe) Object.assign(stats, { calls: probe.prompts, cachedCalls: 0, tokens: probe.completionTokens });
}

/** Stops every server the deploy stage started (the undeploy stage, and the clean-up of a failed or stopped run). */
export const stopServers = (s: IterationState) =>
  scheduled(stageActivities(s.config).deploy.undeployCheckpoint, summary(s, undeploySummary(s.config)), stageContext(s));

/** undeploy: frees the GPUs for the trainer. */
export async function undeploy(s: IterationState): Promise<void> {
  if (s.deployed && !s.undeployed) await stopServers(s);
  s.undeployed = true;
}
