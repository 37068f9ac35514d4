// A real SeaweedFS S3 server per test file (started by cli/stack/seaweedfs.ts, shared with the bench).
import { afterAll, beforeAll } from 'vitest';
import { S3_START_TIMEOUT_MS, type S3Server, startS3Server } from '../../cli/stack/seaweedfs';
import type { StorageConfig } from '../../activities/storage/storage-config';

export { S3_START_TIMEOUT_MS, startS3Server, type S3Server };

/** Starts the file's server before its tests, with this process's AWS_* variables pointing at it (the stores read
 *  credentials the way a user's worker does), and stops it after them. Call at the top level; read it in tests. */
export function useS3Server(): () => S3Server {
  let s3: S3Server | undefined;
  beforeAll(async () => {
    s3 = await startS3Server();
    Object.assign(process.env, s3.env);
  }, S3_START_TIMEOUT_MS);
  afterAll(async () => {
    await s3?.stop();
  });
  return () => {
    if (!s3) throw new Error('the S3 server is not started yet (read it inside a test)');
    return s3;
  };
}

/** A run's `storage:` section on the server, under its own prefix (a test's own corner of the bucket). */
export function s3Storage(s3: S3Server, prefix: string, over: Partial<StorageConfig> = {}): StorageConfig {
  return {
    kind: 's3',
    bucket: s3.bucket,
    prefix,
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    outageToleranceSeconds: 600,
    ...over,
  } as StorageConfig;
}
