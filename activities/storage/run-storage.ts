// Which store a stage uses and where this machine keeps its local files. The config says where the run's bytes
// live (storage:); each worker host keeps logs, trainer work dirs and fetched checkpoints in its own state dir.
import path from 'node:path';
import { ArtifactStore } from '../artifacts/store';
import { LocalObjectStore } from './local-object-store';
import type { ObjectStore } from './object-store';
import type { StorageConfig } from './storage-config';
import { STATE_DIR_ENV } from '../host-env';

/** What stages need of a config; `storage` is absent in runs started before it existed (they are local). */
export type StorageOf = { stateDir: string; storage?: StorageConfig };

/** This host's state dir: the worker's --state-dir, else the config's (the starting machine's, for one-machine runs). */
export function localStateDir(config: StorageOf): string {
  return path.resolve(process.env[STATE_DIR_ENV] || config.stateDir);
}

const opened = new Map<string, ObjectStore>();

/** One store (and one S3 client with its connection pool) per process and storage setting. */
export function objectStoreFor(config: StorageOf): ObjectStore {
  const storage = config.storage ?? { kind: 'local' };
  const id = storage.kind === 'local' ? `local:${localStateDir(config)}` : JSON.stringify(storage);
  let store = opened.get(id);
  if (!store) {
    store = storage.kind === 'local' ? new LocalObjectStore(localStateDir(config)) : openS3(storage);
    opened.set(id, store);
  }
  return store;
}

export function storeFor(config: StorageOf): ArtifactStore {
  return new ArtifactStore(objectStoreFor(config), localStateDir(config));
}

function openS3(_storage: StorageConfig): ObjectStore {
  throw new Error('s3 storage: not wired yet');
}
