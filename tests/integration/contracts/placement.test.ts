// Placement (contracts/placement.ts): which gpu queue a role's trainer and an iteration's servers go to, how a bad
// class is refused in the config and on the worker's command line.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../configs/load';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { deployClass, gpuQueue, placedClasses, placesGpuWork, trainClass } from '../../../contracts/placement';
import { cli } from '../../helpers/cli';

const demo = path.join(PROJECT_ROOT, 'configs', 'demo.yaml');
const withSets = (...sets: string[]) => loadConfig(demo, { overrides: sets }).config;

describe('placement', () => {
  it('sends a pinned role to its class and deploy to the one class named, or to server.gpuClass', () => {
    const plain = withSets();
    expect(placesGpuWork(plain)).toBe(false);
    expect(gpuQueue(trainClass(plain, 'agent'))).toBe('collab-loop-gpu');

    const pinned = withSets('models.agent={kind: trained, gpuClass: h100}');
    expect(gpuQueue(trainClass(pinned, 'agent'))).toBe('collab-loop-gpu-h100');
    expect(trainClass(pinned, 'extractor')).toBeUndefined();
    expect(deployClass(pinned)).toBe('h100');

    const two = withSets('models.agent={kind: trained, gpuClass: h100}', 'models.extractor={kind: frozen, gpuClass: a100}');
    expect(deployClass(two)).toBeUndefined(); // two classes: the servers go to any gpu host …
    expect(placedClasses(two)).toEqual(['a100', 'h100']); // what demo's one-machine worker polls
    const chosen = withSets(
      'models.agent={kind: trained, gpuClass: h100}',
      'models.extractor={kind: frozen, gpuClass: a100}',
      'server.gpuClass=a100',
    );
    expect(deployClass(chosen)).toBe('a100'); // … unless the server section says which
  });

  it('refuses a class that cannot name a task queue, naming the field', () => {
    expect(() => withSets('models.agent={kind: trained, gpuClass: "H 100"}')).toThrow(
      /models\.agent\.gpuClass: lower-case letters, digits/,
    );
  });

  it('refuses --gpu-class and --gpus on a worker that polls no gpu queue, a bad --gpus, and --serve-host without the cluster secret, in one line', async () => {
    const r = await cli(['worker', '--queues', 'cpu', '--gpu-class', 'a100']);
    expect(r.exitCode).toBe(2);
    expect(r.all).toBe('collab-loop: --gpu-class is for gpu workers: add gpu to --queues');
    const bad = await cli(['worker', '--queues', 'gpu', '--gpus', '0,x']);
    expect(bad.exitCode).toBe(2);
    expect(bad.all).toBe('collab-loop: --gpus: "x" is not a GPU index (e.g. --gpus 0,1,2,3)');
    const open = await cli(['worker', '--queues', 'gpu', '--serve-host', 'gpu-1.internal']);
    expect(open.exitCode).toBe(2);
    expect(open.all).toMatch(/^collab-loop: --serve-host: set COLLAB_LOOP_SERVE_SECRET \(the same secret on every host\)/);
  });
});
