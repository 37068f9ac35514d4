// How keys of an S3 store are named as URIs (s3://bucket/prefix/key): shared by the store and the lazy handle that
// stands for it before the AWS SDK is loaded.
import type { S3StorageConfig } from './storage-config';

export const s3Location = (c: S3StorageConfig): string => `s3://${c.bucket}${c.prefix ? `/${c.prefix}` : ''}`;

export const s3FullKey = (c: S3StorageConfig, key: string): string => (c.prefix ? `${c.prefix}/${key}` : key);

export const s3Uri = (c: S3StorageConfig, key: string): string => `s3://${c.bucket}/${s3FullKey(c, key)}`;

export function s3KeyOf(c: S3StorageConfig, uri: string): string | undefined {
  const root = `${s3Location(c)}/`;
  return uri.startsWith(root) && uri.length > root.length ? uri.slice(root.length) : undefined;
}
