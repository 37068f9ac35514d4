// A large file into S3 in parts, resumable by any process on any host with no local state: the bucket itself says
// what was uploaded. An in-progress upload of the key is found with ListMultipartUploads; its parts are kept where
// their size and ETag (the MD5 of the part, for unencrypted single-part uploads) equal the local byte range, and only
// the missing parts are sent. An upload whose parts do not match the file (another version of it) is aborted.
// Part boundaries depend only on the file size and the part size, so every resumer cuts the file the same way.
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  type Part,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';

/** S3's limits: parts of at least 5 MiB (but the last), at most 10,000 of them. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
const MAX_PARTS = 10_000;

export interface MultipartTarget {
  client: S3Client;
  bucket: string;
  /** The full object key (with the store's prefix). */
  key: string;
  /** Wraps an SDK error into the store's error (see s3-errors.ts). */
  fail: (e: unknown, doing: string) => unknown;
  /** The stage's cancellation: aborts the requests in flight, then the upload itself (its parts are deleted). */
  signal?: AbortSignal;
}

export interface MultipartOptions {
  partBytes: number;
  concurrency: number;
  onProgress?: (bytesDone: number) => void;
}

/** Part size for a file: the configured one, grown (in whole MiB) when the file would need more than 10,000 parts. */
export function partSizeFor(size: number, partBytes: number): number {
  const mib = 1024 * 1024;
  return Math.max(partBytes, Math.ceil(size / MAX_PARTS / mib) * mib);
}

export async function uploadFileInParts(t: MultipartTarget, file: string, size: number, o: MultipartOptions): Promise<void> {
  const started: { uploadId?: string } = {};
  try {
    await uploadParts(t, file, size, o, started);
  } catch (e) {
    if (!t.signal?.aborted) throw e;
    // Cancelled: nobody resumes a cancelled stage's upload, so its parts are not left to a lifecycle rule.
    if (started.uploadId) await abortUpload({ ...t, signal: undefined }, started.uploadId).catch(() => {});
    throw t.signal.reason ?? e;
  }
}

async function uploadParts(
  t: MultipartTarget,
  file: string,
  size: number,
  o: MultipartOptions,
  started: { uploadId?: string },
): Promise<void> {
  const partBytes = partSizeFor(size, o.partBytes);
  const parts = Math.ceil(size / partBytes);
  const fh = await open(file, 'r');
  try {
    const range = (n: number) => ({ start: (n - 1) * partBytes, length: Math.min(partBytes, size - (n - 1) * partBytes) });
    const readPart = async (n: number) => {
      const { start, length } = range(n);
      const buf = Buffer.allocUnsafe(length);
      await readFully(fh, buf, start);
      return buf;
    };
    const md5Hex = async (n: number) =>
      createHash('md5')
        .update(await readPart(n))
        .digest('hex');

    const resumed = await findResumable(t, parts, range, md5Hex);
    const uploadId = resumed?.uploadId ?? (await createUpload(t));
    started.uploadId = uploadId;
    const etags = resumed?.etags ?? new Map<number, string>();
    let bytesDone = [...etags.keys()].reduce((s, n) => s + range(n).length, 0);
    if (bytesDone > 0) o.onProgress?.(bytesDone);

    const missing = Array.from({ length: parts }, (_, i) => i + 1).filter((n) => !etags.has(n));
    await inPool(missing, o.concurrency, async (n) => {
      const body = await readPart(n);
      const md5 = createHash('md5').update(body).digest();
      const res = await t.client
        .send(
          new UploadPartCommand({
            Bucket: t.bucket,
            Key: t.key,
            UploadId: uploadId,
            PartNumber: n,
            Body: body,
            ContentLength: body.length,
            ContentMD5: md5.toString('base64'),
          }),
          { abortSignal: t.signal },
        )
        .catch((e) => {
          throw t.fail(e, `upload part ${n}/${parts} of ${t.key}`);
        });
      etags.set(n, res.ETag ?? `"${md5.toString('hex')}"`);
      bytesDone += body.length;
      o.onProgress?.(bytesDone);
    });

    const Parts = [...etags].sort(([a], [b]) => a - b).map(([PartNumber, ETag]) => ({ PartNumber, ETag }));
    await t.client
      .send(new CompleteMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId: uploadId, MultipartUpload: { Parts } }), {
        abortSignal: t.signal,
      })
      .catch((e) => {
        throw t.fail(e, `complete the upload of ${t.key}`);
      });
  } finally {
    await fh.close();
  }
}

async function createUpload(t: MultipartTarget): Promise<string> {
  const res = await t.client
    .send(new CreateMultipartUploadCommand({ Bucket: t.bucket, Key: t.key }), { abortSignal: t.signal })
    .catch((e) => {
      throw t.fail(e, `start a multipart upload of ${t.key}`);
    });
  if (!res.UploadId) throw t.fail(new Error('CreateMultipartUpload returned no UploadId'), `start a multipart upload of ${t.key}`);
  return res.UploadId;
}

/**
 * The newest in-progress upload of the key whose parts all match the file (its parts' ETags by number); uploads of
 * the key whose parts do not match are aborted. Uploads that match but are not the newest are left alone: they hold
 * the same bytes, and a bucket lifecycle rule for incomplete uploads cleans them.
 */
async function findResumable(
  t: MultipartTarget,
  parts: number,
  range: (n: number) => { length: number },
  md5Hex: (n: number) => Promise<string>,
): Promise<{ uploadId: string; etags: Map<number, string> } | undefined> {
  const doing = `look for an interrupted upload of ${t.key}`;
  const uploads: { id: string; initiated: number }[] = [];
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  do {
    const res = await t.client
      .send(new ListMultipartUploadsCommand({ Bucket: t.bucket, Prefix: t.key, KeyMarker, UploadIdMarker }), { abortSignal: t.signal })
      .catch((e) => {
        throw t.fail(e, doing);
      });
    for (const u of res.Uploads ?? [])
      if (u.Key === t.key && u.UploadId) uploads.push({ id: u.UploadId, initiated: u.Initiated?.getTime() ?? 0 });
    const more = res.IsTruncated && (res.NextKeyMarker || res.NextUploadIdMarker);
    KeyMarker = more ? res.NextKeyMarker : undefined;
    UploadIdMarker = more ? res.NextUploadIdMarker : undefined;
  } while (KeyMarker || UploadIdMarker);
  uploads.sort((a, b) => b.initiated - a.initiated);

  const hashes = new Map<number, Promise<string>>();
  const hashOf = (n: number) => hashes.get(n) ?? hashes.set(n, md5Hex(n)).get(n)!;
  let chosen: { uploadId: string; etags: Map<number, string> } | undefined;
  for (const u of uploads) {
    const listed = await listParts(t, u.id);
    if (listed === undefined) continue; // completed or aborted meanwhile
    let matches = true;
    for (const p of listed) {
      const n = p.PartNumber ?? 0;
      if (n < 1 || n > parts || p.Size !== range(n).length || unquote(p.ETag) !== (await hashOf(n))) {
        matches = false;
        break;
      }
    }
    if (!matches) await abortUpload(t, u.id);
    else chosen ??= { uploadId: u.id, etags: new Map(listed.map((p) => [p.PartNumber!, p.ETag!])) };
  }
  return chosen;
}

async function listParts(t: MultipartTarget, uploadId: string): Promise<Part[] | undefined> {
  const out: Part[] = [];
  let PartNumberMarker: string | undefined;
  do {
    const res = await t.client
      .send(new ListPartsCommand({ Bucket: t.bucket, Key: t.key, UploadId: uploadId, PartNumberMarker }), { abortSignal: t.signal })
      .catch((e: { name?: string }) => {
        if (e.name === 'NoSuchUpload') return undefined;
        throw t.fail(e, `list the uploaded parts of ${t.key}`);
      });
    if (!res) return undefined;
    out.push(...(res.Parts ?? []));
    PartNumberMarker = res.IsTruncated ? res.NextPartNumberMarker : undefined;
  } while (PartNumberMarker);
  return out;
}

async function abortUpload(t: MultipartTarget, uploadId: string): Promise<void> {
  await t.client
    .send(new AbortMultipartUploadCommand({ Bucket: t.bucket, Key: t.key, UploadId: uploadId }), { abortSignal: t.signal })
    .catch((e: { name?: string }) => {
      if (e.name !== 'NoSuchUpload') throw t.fail(e, `abort a stale upload of ${t.key}`);
    });
}

const unquote = (etag: string | undefined) => (etag ?? '').replace(/"/g, '').toLowerCase();

async function readFully(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, position + off);
    if (bytesRead === 0) throw new Error(`the file ended early (it changed while being uploaded)`);
    off += bytesRead;
  }
}

/** Runs `work` over `items`, `limit` at a time; after the first failure no new item starts, and the failure is
 *  thrown once the running ones have settled (no request outlives the call). */
async function inPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { e: unknown } | undefined;
  const runner = async () => {
    while (!failure && next < items.length) {
      const item = items[next++];
      await work(item).catch((e) => {
        failure ??= { e };
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, runner));
  if (failure) throw failure.e;
}
