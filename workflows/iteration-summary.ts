// What a finished iteration hands its loop: metrics, datasets, the checkpoint it trained, lineage and manifests.
import type { IterationSummary } from '../contracts/run';
import { spendReport } from './budget';
import type { IterationState } from './iteration-state';
import { roleLineage, trainOutcome } from './role-lineage';

export function iterationSummary(s: IterationState): IterationSummary {
  const { deployed, evaluation, data, trained, trainedRoles, config } = s;
  return {
    iteration: s.input.iteration,
    checkpoint: s.checkpoint,
    metrics: evaluation?.metrics ?? {},
    tokens: s.status.tokens,
    datasets: data ? { sft: data.sft, dpo: data.dpo } : undefined,
    nextCheckpoint: trained?.checkpoint,
    ...(deployed?.served?.probe ? { probe: deployed.served.probe } : {}),
    ...(trained ? { train: trainOutcome(trained) } : {}),
    stages: s.status.stages,
    ...(s.patches.budgets ? { spend: spendReport(s), ...(config.budget ? { budget: config.budget } : {}) } : {}),
    ...(deployed?.roles ? { models: roleLineage(deployed, data, trainedRoles, config) } : {}),
    ...(config !== s.input.config && s.patches.retryConfig ? { config } : {}),
    ...(s.status.configChanges?.length ? { configChanges: s.status.configChanges } : {}),
    manifests: {
      ...(deployed ? { deploy: deployed.manifest } : {}),
      ...(evaluation ? { evaluate: evaluation.manifest } : {}),
      ...(data ? { 'build-data': data.manifest } : {}),
      ...(trained ? { train: trained.manifest } : {}),
      ...Object.fromEntries([...trainedRoles].filter(([r]) => r !== deployed?.primaryRole).map(([r, t]) => [`train-${r}`, t.manifest])),
    },
  };
}
