// Checkpoints in the run's store, for workers on several hosts: the train stage publishes the directory it
// trained into, the deploy stage (on whichever host serves) fetches it into a local cache. With local storage a
// checkpoint is just its directory and nothing moves.
//
// In an object store each file is one blob named by its sha256 (checkpoints/blobs/<sha>), so a retried upload skips
// every file already there, identical files (tokenizers, configs) are stored once across iterations, and every
// fetched byte is checked against its hash. A checkpoint is named by its folder URI
// (…/checkpoints/<run>/iter-<k>[/<role>]) whose checkpoint-index.json lists its files.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, link, mkdir, readdir, realpath, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { sha256Hex } from './content-hash';
import { previousHeartbeat, startHeartbeat } from '../heartbeat';
import { count } from '../metrics';
import { isLocalStorage, objectStoreFor, type StorageOf } from './run-storage';
import { tmpPathBeside } from './local-object-store';
import type { ObjectStore } from './object-store';
import { checkpointCacheDir, evictCheckpoints, touchEntry } from './checkpoint-cache';

const INDEX = 'checkpoint-index.json';

interface CheckpointIndex {
  files: Array<{ path: string; sha256: string; bytes: number }>;
}

const blobKey = (sha256: string) => `checkpoints/blobs/${sha256.slice(0, 2)}/${sha256}`;

/** A published checkpoint's index (its bytes: their hash names the local copy), or undefined when unpublished. */
const indexOf = (objects: ObjectStore, folder: string) => objects.get(`${folder}/${INDEX}`);

/** Streams a file through sha256: checkpoints are far larger than memory. */
export async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Every file under dir; symbolic links are followed (trainers link tokenizer files from the base), so the
 *  published checkpoint holds what a server reading the directory would read. */
async function filesUnder(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    const s = e.isSymbolicLink() ? await stat(path.join(dir, p)) : e;
    if (s.isDirectory()) out.push(...(await filesUnder(dir, p)));
    else if (s.isFile()) out.push(p);
  }
  return out.sort();
}

/**
 * The name later stages use for a checkpoint just trained into `dir`: `dir` itself with local storage; with an object
 * store, the folder URI after every file is uploaded (multipart and resumable inside a file, skipped when its
 * blob exists) and the index written last, so a half-published checkpoint is never visible.
 */
export async function publishCheckpoint(
  config: StorageOf,
  dir: string,
  name: string,
  opts: { heartbeat?: boolean; kind?: CheckpointKind } = {},
): Promise<string> {
  if (isLocalStorage(config)) return dir;
  const objects = objectStoreFor(config);
  const files = await filesUnder(dir);
  const index: CheckpointIndex = { files: [] };
  const progress = { ...keptDetails(), publishing: name, files: files.length, filesDone: 0, bytesDone: 0 };
  // heartbeat: false — published beside a running trainer, whose own progress must stay in the details.
  const hb = opts.heartbeat === false ? { update() {}, stop() {} } : startHeartbeat(progress);
  const labels = { kind: opts.kind ?? 'final' };
  try {
    for (const rel of files) {
      const file = path.join(dir, ...rel.split('/'));
      const [sha256, { size }] = await Promise.all([fileSha256(file), stat(file)]);
      const key = blobKey(sha256);
      const before = progress.bytesDone;
      if (!(await objects.exists(key))) {
        await objects.putFile(key, file, { onProgress: (b) => hb.update({ ...progress, bytesDone: before + b }) });
        count('checkpointUploadedBytes', size, labels);
      }
      index.files.push({ path: rel, sha256, bytes: size });
      progress.filesDone++;
      progress.bytesDone = before + size;
      hb.update({ ...progress });
    }
    const folder = `checkpoints/${name}`;
    const indexBytes = Buffer.from(JSON.stringify(index, null, 2));
    await objects.put(`${folder}/${INDEX}`, indexBytes);
    count('checkpointUploads', 1, labels);
    // This host serves what it trained from its own files: linked into the cache under the name a fetch would use.
    if (labels.kind === 'final') await cacheTrainedOutput(config, dir, files, indexBytes);
    return objects.uriOf(folder);
  } finally {
    hb.stop();
  }
}

/**
 * A checkpoint already published under `name` and one of its files read (the trainer's lineage): lets a train
 * stage retried on another host find the finished work instead of training again.
 */
export async function publishedFile(config: StorageOf, name: string, file: string): Promise<{ uri: string; bytes: Buffer } | undefined> {
  if (isLocalStorage(config)) return undefined;
  const objects = objectStoreFor(config);
  const folder = `checkpoints/${name}`;
  const indexBytes = await indexOf(objects, folder);
  const entry = indexBytes && (JSON.parse(indexBytes.toString('utf8')) as CheckpointIndex).files.find((f) => f.path === file);
  const bytes = entry ? await objects.get(blobKey(entry.sha256)) : undefined;
  return bytes && sha256Hex(bytes) === entry!.sha256 ? { uri: objects.uriOf(folder), bytes } : undefined;
}

/** A checkpoint named by its URI in the run's store (s3://…) rather than a local directory (a path or file://). */
/** What a published checkpoint is, for the checkpoint_* metrics: a train stage's result, or an intermediate step a
 *  retried train stage can resume from (../training/published-steps.ts). */
export type CheckpointKind = 'final' | 'step';

export const isPublishedCheckpoint = (checkpoint: string) => /^[a-z][a-z0-9+.-]*:\/\//.test(checkpoint) && !checkpoint.startsWith('file:');

/**
 * A local directory holding the checkpoint: the directory itself when it is one, else the published checkpoint
 * fetched once into <stateDir>/checkpoint-cache/<index sha256> on this host and reused while the index matches.
 */
export async function localCheckpoint(config: StorageOf, checkpoint: string): Promise<string> {
  if (!isPublishedCheckpoint(checkpoint)) return checkpoint;
  const indexBytes = await publishedIndex(config, checkpoint);
  const dir = path.join(checkpointCacheDir(config), sha256Hex(indexBytes));
  if (await exists(dir)) {
    await touchEntry(dir);
    return dir;
  }
  // Stages of one worker that need the same checkpoint at once (deploy's servers, a critic's scorer) share a fetch.
  let fetch = fetching.get(dir);
  if (!fetch) {
    fetch = fetchInto(config, checkpoint, indexBytes, dir)
      .then(async (d) => {
        await touchEntry(d);
        await evictCheckpoints(config);
        return d;
      })
      .finally(() => fetching.delete(dir));
    fetching.set(dir, fetch);
  }
  return fetch;
}

/** The trained files hard-linked (copied across file systems) into the cache entry of the index just published. */
async function cacheTrainedOutput(config: StorageOf, dir: string, files: string[], indexBytes: Buffer): Promise<void> {
  const entry = path.join(checkpointCacheDir(config), sha256Hex(indexBytes));
  if (await exists(entry)) return;
  const tmp = tmpPathBeside(entry);
  try {
    for (const rel of files) {
      const src = await realpath(path.join(dir, ...rel.split('/'))); // a trainer's link to a base file: the file
      const dest = path.join(tmp, ...rel.split('/'));
      await mkdir(path.dirname(dest), { recursive: true });
      await link(src, dest).catch(() => copyFile(src, dest));
    }
    await rename(tmp, entry).catch(async (err) => {
      if (!(await exists(entry))) throw err;
    });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  await touchEntry(entry);
  await evictCheckpoints(config);
}

const fetching = new Map<string, Promise<string>>();

/** A published checkpoint fetched into `dir` itself (not the cache): for a trainer that resumes from a directory
 *  of its own and may write beside it or rotate it away. */
export async function fetchCheckpoint(config: StorageOf, checkpoint: string, dir: string, kind: CheckpointKind = 'final'): Promise<string> {
  return fetchInto(config, checkpoint, await publishedIndex(config, checkpoint), dir, kind);
}

async function publishedIndex(config: StorageOf, checkpoint: string): Promise<Buffer> {
  const objects = objectStoreFor(config);
  const folder = objects.keyOf(checkpoint);
  const indexBytes = folder === undefined ? undefined : await indexOf(objects, folder);
  if (!indexBytes)
    throw ApplicationFailure.nonRetryable(
      `checkpoint ${checkpoint}: no ${INDEX} in ${objects.location} (was it published by a train stage of a run with this storage?)`,
      'ConfigError',
    );
  return indexBytes;
}

async function fetchInto(
  config: StorageOf,
  checkpoint: string,
  indexBytes: Buffer,
  dir: string,
  kind: CheckpointKind = 'final',
): Promise<string> {
  const objects = objectStoreFor(config);
  const index = JSON.parse(indexBytes.toString('utf8')) as CheckpointIndex;
  const tmp = tmpPathBeside(dir);
  const progress = { ...keptDetails(), fetching: checkpoint, files: index.files.length, filesDone: 0 };
  const hb = startHeartbeat(progress);
  try {
    for (const f of index.files) {
      const dest = path.join(tmp, ...f.path.split('/'));
      await mkdir(path.dirname(dest), { recursive: true });
      if (!(await objects.getFile(blobKey(f.sha256), dest)))
        throw ApplicationFailure.nonRetryable(`checkpoint ${checkpoint}: file ${f.path} is missing from the store`, 'ConfigError');
      if ((await fileSha256(dest)) !== f.sha256) throw new Error(`checkpoint ${checkpoint}: ${f.path} does not match its sha256`);
      progress.filesDone++;
      hb.update({ ...progress });
    }
    // Another attempt on this host may have finished first: its copy is as good as ours.
    await rename(tmp, dir).catch(async (err) => {
      if (!(await exists(dir))) throw err;
    });
    count('checkpointFetches', 1, { kind });
    count(
      'checkpointFetchedBytes',
      index.files.reduce((sum, f) => sum + f.bytes, 0),
      { kind },
    );
    return dir;
  } finally {
    hb.stop();
    await rm(tmp, { recursive: true, force: true });
  }
}

/** The previous attempt's heartbeat details, kept beside the transfer's progress: a trainer's resume point must
 *  survive an attempt that dies while it moves a checkpoint. */
function keptDetails(): Record<string, unknown> {
  const d = previousHeartbeat<unknown>();
  return d && typeof d === 'object' && !Array.isArray(d) ? (d as Record<string, unknown>) : {};
}

const exists = (p: string) =>
  stat(p).then(
    () => true,
    () => false,
  );
