// Intermediate checkpoints in the run's bucket (activities/training/published-steps.ts) against a real SeaweedFS:
// the publisher uploads the newest saved step beside the trainer and names it in the pointer only once uploaded; an
// unreachable store is logged, never thrown. (The train stage resuming from them: ./train-resume.test.ts.)
import { MockActivityEnvironment } from '@temporalio/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newestPublishedStep, type SavedStep, startStepPublisher } from '../../../../activities/training/published-steps';
import { objectStoreFor } from '../../../../activities/storage/run-storage';
import { tempStateDir } from '../../../helpers/config';
import { s3Storage, useS3Server } from '../../../helpers/s3-server';

const server = useS3Server();
const inActivity = <T>(f: () => Promise<T>): Promise<T> => new MockActivityEnvironment().run(f);

function savedSteps(steps: number[]): SavedStep[] {
  const dir = tempStateDir('saved-');
  return steps.map((step) => {
    const d = path.join(dir, `step-${step}`);
    mkdirSync(d);
    writeFileSync(path.join(d, 'state.json'), JSON.stringify({ step }));
    writeFileSync(path.join(d, 'optimizer.pt'), Buffer.alloc(50_000, step));
    return { dir: d, step, rel: `step-${step}` };
  });
}

describe('publishing the steps a trainer saves', () => {
  it('uploads one step at a time, newest wins, and the pointer names the newest uploaded step', async () => {
    const config = { stateDir: tempStateDir('pub-'), storage: s3Storage(server(), 'steps-a') };
    const [s4, s8, s12] = savedSteps([4, 8, 12]);
    const pointed: number[] = [];
    await inActivity(async () => {
      const publisher = startStepPublisher(config, 'run/iter-1', 'sha-data', {
        log: () => {},
        onPublished: (p) => pointed.push(p.step),
      });
      publisher.offer(s4); // uploading…
      publisher.offer(s8); // …waits, and is replaced by the newer step before its turn
      publisher.offer(s12);
      publisher.offer(s8); // an older step is never published after a newer one
      await publisher.close();
    });
    expect(pointed).toEqual([4, 12]);
    const objects = objectStoreFor(config);
    const indexes = (await objects.list('checkpoints/run/iter-1.partial/')).filter((k) => k.endsWith('checkpoint-index.json'));
    expect(indexes.sort()).toEqual([
      'checkpoints/run/iter-1.partial/step-12/checkpoint-index.json',
      'checkpoints/run/iter-1.partial/step-4/checkpoint-index.json',
    ]);
    const newest = await newestPublishedStep(config, 'run/iter-1', 'sha-data');
    expect(newest).toMatchObject({
      step: 12,
      rel: 'step-12',
      uri: `s3://${server().bucket}/steps-a/checkpoints/run/iter-1.partial/step-12`,
    });
    // A step trained on other data is no resume point.
    expect(await newestPublishedStep(config, 'run/iter-1', 'other-data')).toBeUndefined();
  });

  it('a store that cannot be reached is logged and never fails the trainer', async () => {
    // Nothing listens on port 1; no tolerance for the outage, so the upload fails at once.
    const config = {
      stateDir: tempStateDir('pub-'),
      storage: s3Storage(server(), 'steps-b', { endpoint: 'http://127.0.0.1:1', outageToleranceSeconds: 0 }),
    };
    const lines: string[] = [];
    await inActivity(async () => {
      const publisher = startStepPublisher(config, 'run/iter-1', 'sha-data', { log: (l) => lines.push(l), onPublished: () => {} });
      publisher.offer(savedSteps([4])[0]);
      await publisher.close();
    });
    expect(lines.join('\n')).toMatch(/could not publish checkpoint .*step-4 \(step 4\), will try again/);
  });
});
