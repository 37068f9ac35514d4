// Which store a stage uses and where this machine keeps its local files. The config says where the run's bytes
// live (storage:); each worker host keeps logs, trainer work dirs and fetched checkpoints in its own state dir.
import path from 'node:path';
import { LocalObjectStore } from './local-object-store';
import { s3KeyOf, s3Location, s3Uri } from './s3-names';
import type { ListOptions, ObjectStore, PutOptions } from './object-store';
import type { S3StorageConfig, StorageConfig } from './storage-config';
import { STATE_DIR_ENV } from '../host-env';

/** What stages need of a config; without `storage` (callers that name only a state dir), the local store. */
export type StorageOf = { stateDir: string; storage?: StorageConfig };

/** This host's state dir: the worker's --state-dir, else the config's (the starting machine's, for one-machine runs). */
export function localStateDir(config: StorageOf): string {
  return path.resolve(process.env[STATE_DIR_ENV] || config.stateDir);
}

/** One machine's directory (the default) rather than a shared store. */
export const isLocalStorage = (config: StorageOf): boolean => (config.storage?.kind ?? 'local') === 'local';

const opened = new Map<string, ObjectStore>();

/** One store (and one S3 client with its connection pool) per process and storage setting. */
export function objectStoreFor(config: StorageOf): ObjectStore {
  const storage = config.storage ?? { kind: 'local' };
  const id = storage.kind === 'local' ? `local:${localStateDir(config)}` : JSON.stringify(storage);
  let store = opened.get(id);
  if (!store) {
    store = storage.kind === 'local' ? new LocalObjectStore(localStateDir(config)) : new LazyS3Store(storage);
    opened.set(id, store);
  }
  return store;
}

/** The S3 store, loaded on first use: importing the AWS SDK costs ~0.3 s per process (and prints its Node-version
 *  notice), which runs on one machine never pay. */
class LazyS3Store implements ObjectStore {
  readonly location: string;
  private store?: Promise<ObjectStore>;
  constructor(private readonly config: S3StorageConfig) {
    this.location = s3Location(config);
  }
  private s3(): Promise<ObjectStore> {
    this.store ??= import('./s3-object-store').then((m) => new m.S3ObjectStore(this.config));
    return this.store;
  }
  uriOf = (key: string) => s3Uri(this.config, key);
  keyOf = (uri: string) => s3KeyOf(this.config, uri);
  exists = async (key: string) => (await this.s3()).exists(key);
  put = async (key: string, data: Buffer | string, opts?: PutOptions) => (await this.s3()).put(key, data, opts);
  get = async (key: string) => (await this.s3()).get(key);
  putFile: ObjectStore['putFile'] = async (key, file, opts) => (await this.s3()).putFile(key, file, opts);
  getFile = async (key: string, dest: string) => (await this.s3()).getFile(key, dest);
  list = async (prefix: string, opts?: ListOptions) => (await this.s3()).list(prefix, opts);
}
