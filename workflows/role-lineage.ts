// Which roles train on what, and each role's link of its checkpoint chain this iteration (IterationSummary.models).
import type { LoopConfig } from '../contracts/config';
import type { BuiltData, DeployResult, RoleDatasets, RoleLineage, TrainResult } from '../contracts/run';
import { DATASET_OF } from '../contracts/train-methods';

/** A role's dataset for the trainer's method. */
export const datasetFor = (rows: RoleDatasets | undefined, config: LoopConfig) =>
  config.trainer ? rows?.[DATASET_OF[config.trainer.method]] : rows?.sft;

/** The trained roles whose datasets hold rows for the trainer's method (the others keep their checkpoint). */
export const trainableRoles = (roles: NonNullable<BuiltData['roles']>, config: LoopConfig) =>
  Object.keys(roles).filter((r) => datasetFor(roles[r], config));

export function roleLineage(
  deployed: DeployResult,
  data: BuiltData | undefined,
  trained: Map<string, TrainResult>,
  config: LoopConfig,
): Record<string, RoleLineage> {
  const trainable = data?.roles ? trainableRoles(data.roles, config) : [];
  return Object.fromEntries(
    Object.entries(deployed.roles ?? {}).map(([role, d]) => {
      const t = trained.get(role);
      const rows = data?.roles?.[role];
      const dataset = datasetFor(rows, config);
      const lineage: RoleLineage = {
        kind: d.kind,
        ...(d.checkpoint ? { checkpoint: d.checkpoint } : { model: d.endpoint.model }),
        ...(dataset ? { dataset } : {}),
        ...(t ? { nextCheckpoint: t.checkpoint, train: trainOutcome(t) } : {}),
        ...(rows && !trainable.includes(role) ? { skipped: 'no examples' } : {}),
      };
      return [role, lineage];
    }),
  );
}

/** What a user reads of a training: loss, steps, where it resumed, the loss curve. */
export const trainOutcome = (t: TrainResult) => ({
  finalLoss: t.finalLoss,
  steps: t.steps,
  resumedFromStep: t.resumedFromStep,
  lossCurve: t.lossCurve,
});
