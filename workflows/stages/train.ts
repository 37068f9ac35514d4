// train: one trainer per trained role that has examples, in parallel as far as the gpu queue's slots allow; each
// resumes from its own last checkpoint after a crash, and a retry trains only the roles that failed.
import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { StageStats } from '../../contracts/run';
import { scheduled, stageActivities } from '../activity-proxies';
import { publish, summary } from '../iteration-progress';
import { servedCheckpoint, stageContext, type IterationState } from '../iteration-state';
import { trainableRoles } from '../role-lineage';
import { describeFailure } from '../stage-failure';
import { trainSummary } from '../stage-summaries';

export async function train(s: IterationState, _stats: StageStats): Promise<void> {
  const { data, deployed } = s;
  if (s.input.evalOnly || !s.config.trainer || !data) return;
  const { train } = stageActivities(s.config);
  if (!(s.patches.modelRoles && data.roles && deployed?.roles)) {
    // Iterations recorded before model roles trained their one model.
    s.trained = await scheduled(train(undefined).trainCheckpoint, summary(s, trainSummary(s.config)), {
      ...stageContext(s),
      checkpoint: s.checkpoint,
      data,
    });
    return;
  }
  const roles = data.roles;
  const several = Object.keys(roles).length > 1;
  const pending = trainableRoles(roles, s.config).filter((r) => !s.trainedRoles.has(r));
  const settled = await Promise.allSettled(
    pending.map(async (role) => {
      const result = await scheduled(train(role).trainCheckpoint, summary(s, trainSummary(s.config, several ? role : undefined)), {
        ...stageContext(s),
        checkpoint: servedCheckpoint(deployed, role),
        data: roles[role],
        ...(several ? { role } : {}),
      });
      s.trainedRoles.set(role, result);
      publish(s); // the role's steps, loss and checkpoint in the details now, not when the last role is done
    }),
  );
  const failed = pending.filter((_, i) => settled[i].status === 'rejected');
  const reasons = settled.flatMap((x) => (x.status === 'rejected' ? [x.reason as unknown] : []));
  const cancelled = reasons.find(isCancellation);
  if (cancelled) throw cancelled;
  if (failed.length) {
    const first = describeFailure(reasons[0]);
    throw ApplicationFailure.create({
      message: several ? `training ${failed.join(', ')} failed; ${failed[0]}: ${first.message}` : first.message,
      type: first.type,
      details: [failed],
    });
  }
  s.trained = deployed.primaryRole ? s.trainedRoles.get(deployed.primaryRole) : undefined;
}
