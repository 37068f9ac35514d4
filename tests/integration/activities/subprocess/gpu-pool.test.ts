// The host's GPU pool (activities/subprocess/gpu-pool.ts) with real process groups: each start gets indices no live
// group holds, an index comes back when its group dies, a start waits while too few are free, and a host without
// --gpus hands out none.
import { afterEach, describe, expect, it } from 'vitest';
import { GPUS_ENV } from '../../../../activities/host-env';
import { acquireGpus, parseGpuList } from '../../../../activities/subprocess/gpu-pool';
import path from 'node:path';
import { killProcessGroup, writePidFile } from '../../../../activities/subprocess/process-group';
import { recordGroup } from '../../../../activities/subprocess/process-registry';
import { tempStateDir } from '../../../helpers/config';
import { sleepingGroups } from '../../../helpers/sleeping-groups';

const groups = sleepingGroups();
afterEach(async () => {
  delete process.env[GPUS_ENV];
  await groups.killAll();
});

/** Starts a group on `count` GPUs as a trainer or server start does: acquire, record, release the reservation. */
async function startOn(stateDir: string, count: number): Promise<{ pid: number; gpus: number[] }> {
  const lease = await acquireGpus(stateDir, count, undefined, 20);
  const pid = groups.start();
  recordGroup(stateDir, { pid, kind: 'trainer', argv: ['sleep'], gpus: lease.gpus });
  lease.release();
  return { pid, gpus: lease.gpus };
}

describe('GPU pool', () => {
  it('hands out indices no live group holds, and takes them back when the group dies', async () => {
    process.env[GPUS_ENV] = '4,5,6';
    const stateDir = tempStateDir();
    const a = await startOn(stateDir, 2);
    const b = await startOn(stateDir, 1);
    expect([...a.gpus, ...b.gpus].sort()).toEqual([4, 5, 6]);
    // None free: the next start waits until a group ends.
    let got: number[] | undefined;
    const waiting = acquireGpus(stateDir, 1, undefined, 20).then((l) => {
      got = l.gpus;
      return l;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(got).toBeUndefined();
    await killProcessGroup(b.pid, 1000);
    const lease = await waiting;
    expect(lease.gpus).toEqual(b.gpus);
    expect(lease.env).toEqual({ CUDA_VISIBLE_DEVICES: String(b.gpus[0]) });
    lease.release();
  });

  it('counts a server kept running past its worker (--keep-servers: named by its pid file only) as holding its GPU', async () => {
    process.env[GPUS_ENV] = '4,5';
    const stateDir = tempStateDir();
    const pid = groups.start();
    writePidFile(path.join(stateDir, 'servers', 'run', 'iter-0.model.json'), { pid, gpus: [4] });
    const lease = await acquireGpus(stateDir, 1);
    expect(lease.gpus).toEqual([5]);
    lease.release();
  });

  it('reserves chosen indices until the group is recorded, so concurrent starts never share one', async () => {
    process.env[GPUS_ENV] = '0,1';
    const stateDir = tempStateDir();
    const [x, y] = await Promise.all([acquireGpus(stateDir, 1), acquireGpus(stateDir, 1)]);
    expect([...x.gpus, ...y.gpus].sort()).toEqual([0, 1]);
    x.release();
    y.release();
  });

  it('refuses more GPUs than the host has, and hands out none without --gpus', async () => {
    process.env[GPUS_ENV] = '0,1';
    await expect(acquireGpus(tempStateDir(), 3)).rejects.toThrow('needs 3 GPUs but this host has 2 (--gpus 0,1)');
    delete process.env[GPUS_ENV];
    const none = await acquireGpus(tempStateDir(), 1);
    expect(none).toMatchObject({ gpus: [], env: {} });
  });

  it('parses --gpus', () => {
    expect(parseGpuList('0, 2,3')).toEqual([0, 2, 3]);
    expect(parseGpuList(undefined)).toBeUndefined();
    expect(() => parseGpuList('0,a')).toThrow('"a" is not a GPU index');
    expect(() => parseGpuList('1,1')).toThrow('names a GPU twice');
  });
});
