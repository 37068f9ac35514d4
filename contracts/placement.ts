// Placement: which gpu task queue a role's trainer and an iteration's servers go to. A gpu worker started with
// `--gpu-class a100` polls `collab-loop-gpu-a100` as well as the generic `collab-loop-gpu`; a role pinned with
// `models.<role>.gpuClass: a100` trains there, and the deploy stage (one activity that starts all of an iteration's
// servers on one host) goes to `server.gpuClass`, else to the one class the pinned roles name. Pure: the workflow
// computes its activities' queues with it (workflows/activity-proxies.ts); the CLI names the queues a worker polls
// (cli/commands/worker.ts) and which classes a one-machine run serves (cli/one-shot.ts) with it.
import type { LoopConfig } from './config';
import { TASK_QUEUES } from './run';

/** The queue of a gpu class (the generic gpu queue without one). */
export const gpuQueue = (gpuClass?: string): string => (gpuClass ? `${TASK_QUEUES.gpu}-${gpuClass}` : TASK_QUEUES.gpu);

type Placed = Pick<LoopConfig, 'models' | 'server'>;

// `models` is absent from the configs of runs recorded before model roles.
const rolesOf = (config: Placed): Placed['models'] => config.models ?? {};

const roleClass = (config: Placed, role: string): string | undefined => {
  const m = rolesOf(config)[role];
  return m && m.kind !== 'external' ? m.gpuClass : undefined;
};

/** The distinct classes the config's roles are pinned to. */
export const pinnedClasses = (config: Placed): string[] =>
  [...new Set(Object.keys(rolesOf(config)).flatMap((r) => roleClass(config, r) ?? []))].sort();

/** Where the deploy, serve-scorers and undeploy activities go. */
export function deployClass(config: Placed): string | undefined {
  if (config.server.kind !== 'external' && config.server.gpuClass) return config.server.gpuClass;
  const pinned = pinnedClasses(config);
  return pinned.length === 1 ? pinned[0] : undefined;
}

/** Every class the config sends work to (a one-machine run polls them all: cli/in-process-worker.ts). */
export function placedClasses(config: Placed): string[] {
  const deploy = deployClass(config);
  return [...new Set([...pinnedClasses(config), ...(deploy ? [deploy] : [])])].sort();
}

/** Whether the config places anything off the generic gpu queue. */
export const placesGpuWork = (config: Placed): boolean => placedClasses(config).length > 0;

/** Where a role's train activity goes (`role` undefined: the single-model trainer of older iterations → deploy's). */
export const trainClass = (config: Placed, role: string | undefined): string | undefined =>
  role === undefined ? deployClass(config) : roleClass(config, role);
