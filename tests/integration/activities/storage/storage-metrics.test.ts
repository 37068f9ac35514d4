// The object store's and the checkpoints' metrics (activities/metrics.ts) as an operator reads them, against a real
// SeaweedFS: bytes moved each way, failed requests by operation and kind — every request an outage wait retried
// included, so an outage shows while the run rides it out — and intermediate checkpoints uploaded and fetched, with
// the bytes actually sent (a file the store already holds is not sent again).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRunLabel } from '../../../../activities/metrics';
import { objectStoreFor } from '../../../../activities/storage/run-storage';
import { fetchNewerStep, startStepPublisher } from '../../../../activities/training/published-steps';
import { tempStateDir } from '../../../helpers/config';
import { recordMetrics, type RecordingMeter } from '../../../helpers/recording-meter';
import { s3Storage, useS3Server } from '../../../helpers/s3-server';

const server = useS3Server();
let metrics: RecordingMeter;
beforeAll(() => {
  metrics = recordMetrics();
});
afterAll(() => metrics.stop());

/** `f` as an activity of run `run` (the worker's interceptor gives activities their run label). */
const inActivity = <T>(run: string, f: () => Promise<T>): Promise<T> => new MockActivityEnvironment().run(() => withRunLabel(run, f));

describe('storage metrics', () => {
  it('counts the bytes put and got', async () => {
    const objects = objectStoreFor({ stateDir: tempStateDir('sm-'), storage: s3Storage(server(), 'metrics-bytes') });
    await withRunLabel('bytes', async () => {
      await objects.put('a.txt', Buffer.alloc(1234, 1));
      expect((await objects.get('a.txt'))?.length).toBe(1234);
      expect(await objects.get('missing.txt')).toBeUndefined(); // no such object: no bytes, no error
    });
    expect(metrics.sum('collab_loop_storage_uploaded_bytes', { run: 'bytes' })).toBe(1234);
    expect(metrics.sum('collab_loop_storage_downloaded_bytes', { run: 'bytes' })).toBe(1234);
    expect(metrics.sum('collab_loop_storage_errors', { run: 'bytes' })).toBe(0);
  });

  it('counts failed requests by operation and kind, each retried one too', async () => {
    const noBucket = objectStoreFor({ stateDir: tempStateDir('sm-'), storage: s3Storage(server(), 'x', { bucket: 'no-such-bucket' }) });
    await expect(withRunLabel('errors', () => noBucket.put('a.txt', 'x'))).rejects.toThrow(/does not exist/);
    expect(metrics.sum('collab_loop_storage_errors', { run: 'errors', operation: 'put', kind: 'NoSuchBucket' })).toBe(1);

    // Nothing listens on port 1: an outage, waited out for 2 s before the get fails.
    const down = objectStoreFor({
      stateDir: tempStateDir('sm-'),
      storage: s3Storage(server(), 'x', { endpoint: 'http://127.0.0.1:1', outageToleranceSeconds: 2 }),
    });
    await expect(withRunLabel('errors', () => down.get('a.txt'))).rejects.toThrow(/cannot reach the endpoint \(ECONNREFUSED\)/);
    expect(metrics.sum('collab_loop_storage_errors', { run: 'errors', operation: 'get', kind: 'ECONNREFUSED' })).toBeGreaterThan(1);
    expect(metrics.sum('collab_loop_storage_uploaded_bytes', { run: 'errors' })).toBe(0);
  });

  it('counts intermediate checkpoints uploaded and fetched, with the bytes sent', async () => {
    const config = { stateDir: tempStateDir('sm-'), storage: s3Storage(server(), 'metrics-steps') };
    const saved = tempStateDir('saved-');
    const step = (n: number) => {
      const dir = path.join(saved, `step-${n}`);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'state.json'), '{"same":1}'); // 10 bytes, the same in every step
      writeFileSync(path.join(dir, 'optimizer.pt'), Buffer.alloc(50_000, n));
      return { dir, step: n, rel: `step-${n}` };
    };
    const labels = { run: 'steps', kind: 'step' };
    await inActivity('steps', async () => {
      const publisher = startStepPublisher(config, 'steps/iter-1', 'data', { log: () => {}, onPublished: () => {} });
      publisher.offer(step(4));
      await publisher.close();
      publisher.offer(step(8));
      await publisher.close();
    });
    expect(metrics.sum('collab_loop_checkpoint_uploads', labels)).toBe(2);
    expect(metrics.sum('collab_loop_checkpoint_uploaded_bytes', labels)).toBe(10 + 50_000 + 50_000);

    const fetched = await inActivity('steps', () => fetchNewerStep(config, 'steps/iter-1', 'data', undefined, tempStateDir('resume-')));
    expect(fetched?.step).toBe(8);
    expect(metrics.sum('collab_loop_checkpoint_fetches', labels)).toBe(1);
    expect(metrics.sum('collab_loop_checkpoint_fetched_bytes', labels)).toBe(50_010);
    expect(metrics.sum('collab_loop_checkpoint_uploads', { kind: 'final' })).toBe(0);
  });
});
