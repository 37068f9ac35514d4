// SIMULATION, not learning: how much a simulated policy's `skill` rises after training on `rows` examples. Used by
// the stand-in trainer (simulator checkpoints) and, with `agents:` in the config, by the train stage on top of a
// real trainer's checkpoint, so dry runs on CPU show the loop's mechanics with metrics that move.
export interface SimulatedPolicyFile {
  skill: number;
  agreeability?: number;
}

/** Diminishing returns in the amount of data; capped below 1. */
export function trainedSimulatedPolicy(base: SimulatedPolicyFile, rows: number): SimulatedPolicyFile {
  const gain = 0.25 * (rows / (rows + 40));
  const skill = Math.min(0.95, base.skill + gain * (1 - base.skill));
  return { ...base, skill: Number(skill.toFixed(4)) };
}
