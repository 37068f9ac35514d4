// The stages of an iteration, in the order they run.
export const STAGES = ['deploy', 'generate', 'evaluate', 'build-data', 'undeploy', 'train'] as const;
export type Stage = (typeof STAGES)[number];
