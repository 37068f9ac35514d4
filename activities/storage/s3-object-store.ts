// The ObjectStore on an S3 bucket (AWS or any S3-compatible server: SeaweedFS, MinIO, Ceph): what lets workers on
// several hosts share a run's artifacts, request cache and checkpoints. Keys live under `prefix/`. Credentials come
// from the AWS SDK's default chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, AWS_PROFILE),
// never from the config file.
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, stat, readFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { activityCancellation } from '../heartbeat';
import { count } from '../metrics';
import { writeAtomic } from './local-object-store';
import type { ListOptions, ObjectStore, PutOptions } from './object-store';
import { rideOutOutage } from './outage-retry';
import { s3Failure, type S3Place } from './s3-errors';
import { MIN_PART_BYTES, uploadFileInParts } from './s3-multipart-upload';
import { outageToleranceMs, type S3StorageConfig } from './storage-config';
import { StorageError } from './storage-error';
import { s3FullKey, s3KeyOf, s3Location, s3Uri } from './s3-names';

export interface S3Tuning {
  /** Size of a multipart upload's parts, and the file size above which putFile uploads in parts (default 16 MiB). */
  partSizeBytes?: number;
  /** Parts in flight at once (default 4). */
  partConcurrency?: number;
}

/** Give up on a connection that does not open, or a socket silent for this long, rather than hang a stage. */
const CONNECT_TIMEOUT_MS = 10_000;
const SOCKET_IDLE_TIMEOUT_MS = 60_000;

export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  /** The SDK client (tests attach middleware to it to count requests). */
  readonly client: S3Client;
  private readonly place: S3Place;
  private readonly partBytes: number;
  private readonly partConcurrency: number;

  constructor(
    readonly config: S3StorageConfig,
    tuning: S3Tuning = {},
  ) {
    this.location = s3Location(config);
    this.place = { location: this.location, endpoint: config.endpoint ?? `AWS S3 (${config.region})`, bucket: config.bucket };
    this.partBytes = tuning.partSizeBytes ?? 16 * 1024 * 1024;
    if (this.partBytes < MIN_PART_BYTES) throw new StorageError(`S3 part size ${this.partBytes} is below S3's minimum of 5 MiB`);
    this.partConcurrency = Math.max(1, tuning.partConcurrency ?? 4);
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      retryMode: 'standard',
      maxAttempts: 4,
      // Integrity by Content-MD5 (we compute the MD5s anyway for resumable parts) rather than the SDK's default CRC
      // trailers, which not every S3-compatible server accepts.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: SOCKET_IDLE_TIMEOUT_MS },
    });
  }

  private fullKey(key: string): string {
    return s3FullKey(this.config, key);
  }

  uriOf(key: string): string {
    return s3Uri(this.config, key);
  }

  keyOf(uri: string): string | undefined {
    return s3KeyOf(this.config, uri);
  }

  /** One whole operation, tried again while the store is unreachable (outage-retry.ts). Whole operations, not SDK
   *  calls: a retried getFile starts its download again, a retried putFile resumes its multipart upload. */
  private patient<T>(op: () => Promise<T>): Promise<T> {
    return rideOutOutage(op, { toleranceMs: outageToleranceMs(this.config) });
  }

  /** Runs one SDK call of the store's operation `op`; its failure becomes the store's error. The call is given the
   *  activity's cancellation signal (none outside an activity): a cancelled stage stops its transfers rather than
   *  finishing them, and gets its cancellation back, not a storage error. */
  private async call<T>(op: StoreOp, doing: string, f: (abortSignal?: AbortSignal) => Promise<T>): Promise<T> {
    const signal = activityCancellation();
    try {
      if (signal?.aborted) throw signal.reason;
      return await f(signal);
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      throw this.failed(e, op, doing);
    }
  }

  /** The store's error for `e`, counted by operation and kind (the S3 or network error code) — each failed request,
   *  also those an outage wait retries: the storage_errors metric shows an outage while the run rides it out. */
  private failed(e: unknown, op: StoreOp, doing: string): unknown {
    const err = s3Failure(e, this.place, doing);
    if (err instanceof StorageError) count('storageErrors', 1, { operation: op, kind: err.code ?? 'other' });
    return err;
  }

  exists(key: string): Promise<boolean> {
    return this.patient(() => this.existsOnce(key));
  }

  private existsOnce(key: string): Promise<boolean> {
    return this.call('exists', `check ${key}`, (abortSignal) =>
      this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.fullKey(key) }), { abortSignal }).then(
        () => true,
        (e) => {
          if (isMissing(e)) return false;
          throw e;
        },
      ),
    );
  }

  put(key: string, data: Buffer | string, opts: PutOptions = {}): Promise<void> {
    const body = typeof data === 'string' ? Buffer.from(data) : data;
    return opts.failFast ? this.putOnce(key, body) : this.patient(() => this.putOnce(key, body));
  }

  private async putOnce(key: string, body: Buffer, op: StoreOp = 'put'): Promise<void> {
    await this.call(op, `put ${key}`, (abortSignal) =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.config.bucket,
          Key: this.fullKey(key),
          Body: body,
          ContentLength: body.length,
          ContentMD5: createHash('md5').update(body).digest('base64'),
        }),
        { abortSignal },
      ),
    );
    count('storageUploadedBytes', body.length);
  }

  /** GetObject's response, or undefined when there is no such object. */
  private async getObject(key: string, op: StoreOp, doing: string) {
    return this.call(op, doing, (abortSignal) =>
      this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.fullKey(key) }), { abortSignal }).catch((e) => {
        if (isMissing(e)) return undefined;
        throw e;
      }),
    );
  }

  get(key: string): Promise<Buffer | undefined> {
    return this.patient(() => this.getOnce(key));
  }

  private async getOnce(key: string): Promise<Buffer | undefined> {
    const doing = `get ${key}`;
    const res = await this.getObject(key, 'get', doing);
    if (!res?.Body) return undefined;
    const bytes = await this.call('get', doing, () => res.Body!.transformToByteArray());
    count('storageDownloadedBytes', bytes.byteLength);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  putFile(key: string, file: string, opts: { onProgress?: (bytesDone: number) => void } = {}): Promise<void> {
    return this.patient(() => this.putFileOnce(key, file, opts));
  }

  private async putFileOnce(key: string, file: string, opts: { onProgress?: (bytesDone: number) => void }): Promise<void> {
    const { size } = await stat(file);
    if (size <= this.partBytes) {
      await this.putOnce(key, await readFile(file), 'putFile');
      opts.onProgress?.(size);
      return;
    }
    await uploadFileInParts(
      {
        client: this.client,
        bucket: this.config.bucket,
        key: this.fullKey(key),
        fail: (e, doing) => this.failed(e, 'putFile', doing),
        signal: activityCancellation(),
      },
      file,
      size,
      { partBytes: this.partBytes, concurrency: this.partConcurrency, onProgress: opts.onProgress },
    );
    // The whole file, though a resumed upload sends only the parts the store did not have yet.
    count('storageUploadedBytes', size);
  }

  getFile(key: string, dest: string): Promise<boolean> {
    return this.patient(() => this.getFileOnce(key, dest));
  }

  private async getFileOnce(key: string, dest: string): Promise<boolean> {
    const doing = `download ${key}`;
    const res = await this.getObject(key, 'getFile', doing);
    if (!res?.Body) return false;
    const body = res.Body as Readable;
    // A body never read holds its pooled socket: release it whatever fails before or while it is copied.
    try {
      await writeAtomic(dest, async (tmp) => {
        try {
          await this.call('getFile', doing, (signal) => pipeline(body, createWriteStream(tmp), { signal }));
          const got = (await stat(tmp)).size;
          if (res.ContentLength !== undefined && got !== res.ContentLength)
            throw this.failed(
              new StorageError(`object store ${this.location}: ${doing}: got ${got} of ${res.ContentLength} bytes`, 'ShortRead', true),
              'getFile',
              doing,
            );
          count('storageDownloadedBytes', got);
        } catch (e) {
          await rm(tmp, { force: true });
          throw e;
        }
      });
    } catch (e) {
      body.destroy();
      throw e;
    }
    return true;
  }

  list(prefix: string, opts: ListOptions = {}): Promise<string[]> {
    return this.patient(() => this.listOnce(prefix, opts.limit));
  }

  private async listOnce(prefix: string, limit?: number): Promise<string[]> {
    const strip = this.config.prefix ? this.config.prefix.length + 1 : 0;
    const out: string[] = [];
    let ContinuationToken: string | undefined;
    do {
      const res = await this.call('list', `list ${prefix || '(all)'}`, (abortSignal) =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.config.bucket,
            Prefix: this.fullKey(prefix),
            ContinuationToken,
            MaxKeys: limit === undefined ? undefined : Math.min(1000, limit - out.length),
          }),
          { abortSignal },
        ),
      );
      for (const o of res.Contents ?? []) if (o.Key) out.push(o.Key.slice(strip));
      ContinuationToken = res.IsTruncated && (limit === undefined || out.length < limit) ? res.NextContinuationToken : undefined;
    } while (ContinuationToken);
    return out;
  }
}

/** The ObjectStore method a request serves: the `operation` label of storage_errors. */
type StoreOp = 'exists' | 'put' | 'get' | 'putFile' | 'getFile' | 'list';

/** NoSuchKey from GET; a bare 404 from HEAD (a HEAD response has no body to name the error). */
function isMissing(e: { name?: string; $metadata?: { httpStatusCode?: number } }): boolean {
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || (e.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
}
