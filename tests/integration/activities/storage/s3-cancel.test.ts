// A cancelled stage stops its S3 transfers instead of finishing them: an upload in parts cancelled midway leaves
// no object and no in-progress multipart upload (its parts are deleted), a download cancelled midway leaves no file,
// and both end within seconds of the cancellation.
import { ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
import { MockActivityEnvironment } from '@temporalio/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { S3ObjectStore } from '../../../../activities/storage/s3-object-store';
import { s3StorageSchema } from '../../../../activities/storage/storage-config';
import { tempStateDir } from '../../../helpers/config';
import { useS3Server } from '../../../helpers/s3-server';
import { waitUntil } from '../../../helpers/wait';

const MiB = 1024 * 1024;
/** How soon after the cancellation the transfer must have stopped. */
const STOPS_WITHIN_MS = 10_000;

const server = useS3Server();
const store = () =>
  new S3ObjectStore(
    s3StorageSchema.parse({ kind: 's3', bucket: server().bucket, prefix: `runs/${randomUUID()}`, endpoint: server().endpoint }),
    { partSizeBytes: 5 * MiB, partConcurrency: 1 },
  );

/** A file big enough that its transfer is still running when the test cancels it. */
function bigFile(dir: string): string {
  const file = path.join(dir, 'model.bin');
  writeFileSync(file, Buffer.concat(Array.from({ length: 32 }, () => randomBytes(4 * MiB))));
  return file;
}

/** Runs `transfer` as an activity, cancels it once `started` says it is under way; how long it took to end then. */
async function cancelMidway(transfer: () => Promise<unknown>, started: () => boolean): Promise<{ error: unknown; stoppedMs: number }> {
  const env = new MockActivityEnvironment();
  const running = env.run(transfer).then(
    () => undefined,
    (e: unknown) => e,
  );
  await waitUntil(async () => started(), 60_000, 'the transfer to start');
  const t0 = Date.now();
  env.cancel();
  const error = await running;
  return { error, stoppedMs: Date.now() - t0 };
}

describe('cancelling a stage during an S3 transfer', () => {
  it('aborts an upload in parts: no object, no multipart upload left', async () => {
    const s = store();
    const file = bigFile(tempStateDir('s3-cancel-'));
    let sent = 0;
    const { error, stoppedMs } = await cancelMidway(
      () => s.putFile('model.bin', file, { onProgress: (b) => (sent = b) }),
      () => sent > 0,
    );
    expect(error).toBeDefined();
    expect(sent).toBeLessThan(128 * MiB);
    expect(stoppedMs).toBeLessThan(STOPS_WITHIN_MS);
    expect(await s.exists('model.bin')).toBe(false);
    const { Uploads } = await s.client.send(new ListMultipartUploadsCommand({ Bucket: s.config.bucket, Prefix: s.config.prefix }));
    expect(Uploads ?? []).toEqual([]);
  }, 120_000);

  it('aborts a download: no file left behind', async () => {
    const s = store();
    const dir = tempStateDir('s3-cancel-');
    await s.putFile('model.bin', bigFile(dir));
    const dest = path.join(dir, 'fetched', 'model.bin');
    const { error, stoppedMs } = await cancelMidway(
      () => s.getFile('model.bin', dest),
      () => existsSync(path.dirname(dest)) && readdirSync(path.dirname(dest)).length > 0,
    );
    expect(error).toBeDefined();
    expect(stoppedMs).toBeLessThan(STOPS_WITHIN_MS);
    expect(existsSync(dest)).toBe(false);
    expect(readdirSync(path.dirname(dest))).toEqual([]); // nor its temporary file
  }, 120_000);
});
