// The `storage:` section: where a run's artifacts, manifests, request cache and checkpoints live.
// Credentials never appear here: the AWS SDK reads the standard AWS_* environment variables (and profile files).
import { z } from 'zod';

export const s3StorageSchema = z
  .strictObject({
    kind: z.literal('s3'),
    bucket: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'an S3 bucket name (3-63 lowercase letters, digits, "." and "-")')
      .meta({ description: 'The bucket (it must exist). Credentials come from the AWS_* environment variables, never the config.' }),
    prefix: z
      .string()
      .regex(/^([^/].*[^/]|[^/])?$/, 'no leading or trailing "/"')
      .default('')
      .meta({ description: 'Key prefix inside the bucket, e.g. "teams/reasoning"; "" puts the run\'s objects at the bucket\'s top.' }),
    endpoint: z
      .url()
      .optional()
      .meta({ description: 'An S3-compatible server (SeaweedFS, MinIO, Ceph…), e.g. http://storage:8333; AWS itself when left out.' }),
    region: z.string().default('us-east-1').meta({ description: "The bucket's region." }),
    forcePathStyle: z
      .boolean()
      .default(true)
      .meta({ description: 'Bucket in the path rather than the host name: what most self-hosted servers need.' }),
    outageToleranceSeconds: z.number().int().min(0).default(600).meta({
      description:
        'How long a store operation keeps retrying a store it cannot reach (or that answers 5xx / SlowDown) before the stage fails: an outage shorter than this costs the run its length, not a retry by hand (outage-retry.ts).',
    }),
  })
  .meta({ description: 'An S3 bucket that every worker host reaches (AWS, or an S3-compatible server such as SeaweedFS or MinIO).' });

export const storageSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('local') }).meta({ description: "A directory on this machine: the run's stateDir." }),
  s3StorageSchema,
]);

export type StorageConfig = z.infer<typeof storageSchema>;
export type S3StorageConfig = z.infer<typeof s3StorageSchema>;

export const outageToleranceMs = (c: S3StorageConfig): number => c.outageToleranceSeconds * 1000;
