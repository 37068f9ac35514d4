// The `storage:` section: where a run's artifacts, manifests, request cache and checkpoints live.
// Credentials never appear here: the AWS SDK reads the standard AWS_* environment variables (and profile files).
import { z } from 'zod';

export const s3StorageSchema = z.strictObject({
  kind: z.literal('s3'),
  bucket: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name (3-63 lowercase letters, digits, "." and "-")'),
  /** Key prefix inside the bucket, e.g. "teams/reasoning"; "" puts the run's objects at the bucket's top. */
  prefix: z
    .string()
    .regex(/^([^/].*[^/]|[^/])?$/, 'no leading or trailing "/"')
    .default(''),
  /** An S3-compatible server (SeaweedFS, MinIO, Ceph…), e.g. http://storage:8333; AWS itself when left out. */
  endpoint: z.url().optional(),
  region: z.string().default('us-east-1'),
  /** Bucket in the path rather than the host name: what most self-hosted servers need. */
  forcePathStyle: z.boolean().default(true),
  /** How long a store operation keeps retrying a store it cannot reach (or that answers 5xx / SlowDown) before the
   *  stage fails: an outage shorter than this costs the run its length, not a retry by hand (outage-retry.ts). */
  outageToleranceSeconds: z.number().int().min(0).default(600),
});

export const storageSchema = z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('local') }), s3StorageSchema]);

export type StorageConfig = z.infer<typeof storageSchema>;
export type S3StorageConfig = z.infer<typeof s3StorageSchema>;

export const outageToleranceMs = (c: S3StorageConfig): number => c.outageToleranceSeconds * 1000;
