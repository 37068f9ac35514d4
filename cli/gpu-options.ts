// `collab-loop worker --gpu-class / --gpus / --gpu-slots`: where a gpu host's work comes from (contracts/placement.ts)
// and which GPU indices it hands its trainers and servers (activities/subprocess/gpu-pool.ts, told through the
// process environment: a host setting, never in a workflow history).
import { GPUS_ENV } from '../activities/host-env';
import { parseGpuList } from '../activities/subprocess/gpu-pool';
import { gpuClass } from '../contracts/config-fields';
import { UserError } from './user-error';

const DEFAULT_GPU_SLOTS = 4;

export function gpuOptions(
  o: { gpuSlots?: string; gpuClass?: string; gpus?: string },
  queues: readonly string[],
): { gpuSlots: number; gpuClasses: string[] } {
  const polled = queues.includes('gpu');
  for (const [flag, given] of [
    ['--gpu-class', o.gpuClass],
    ['--gpus', o.gpus],
  ] as const)
    if (given !== undefined && !polled) throw new UserError(`${flag} is for gpu workers: add gpu to --queues`);
  const gpuClasses = (o.gpuClass ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  for (const c of gpuClasses) {
    const r = gpuClass.safeParse(c);
    if (!r.success) throw new UserError(`--gpu-class: "${c}": ${r.error.issues[0].message}`);
  }
  let gpus: number[] | undefined;
  try {
    gpus = parseGpuList(o.gpus);
  } catch (err) {
    throw new UserError(`--gpus: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (gpus) process.env[GPUS_ENV] = gpus.join(',');
  const gpuSlots = o.gpuSlots === undefined ? (gpus?.length ?? DEFAULT_GPU_SLOTS) : Number(o.gpuSlots);
  if (!Number.isInteger(gpuSlots) || gpuSlots < 1) throw new UserError(`--gpu-slots: "${o.gpuSlots}" is not a positive whole number`);
  return { gpuSlots, gpuClasses };
}
