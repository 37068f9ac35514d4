// Where a run's bytes live: artifacts, stage manifests, the LLM request cache and checkpoints all go through one
// ObjectStore, so the same stages run against a local directory (one machine) or an S3 bucket (several hosts).
// Keys are '/'-separated paths relative to the store's root (e.g. "artifacts/objects/ab/<sha>.jsonl").

export interface PutOptions {
  failFast?: boolean;
}

export interface ListOptions {
  limit?: number;
}

export interface ObjectStore {
  /** The store's root as a URI, for messages: file:///abs/dir or s3://bucket/prefix. */
  readonly location: string;
  /** The URI a key is stored under: what artifact references carry. */
  uriOf(key: string): string;
  /** The key a URI names in this store, or undefined when the URI is not in it. */
  keyOf(uri: string): string | undefined;
  exists(key: string): Promise<boolean>;
  /** Writes an object whole: a reader never sees part of it, a writer killed midway leaves nothing under the key.
   *  Like every operation, it waits out a store that is briefly unreachable (storage.outageToleranceSeconds) unless
   *  `failFast`: then the first transient failure is thrown, for a caller that can keep the bytes elsewhere. */
  put(key: string, data: Buffer | string, opts?: PutOptions): Promise<void>;
  /** The object's bytes, or undefined when there is no such object. */
  get(key: string): Promise<Buffer | undefined>;
  /** Stores a local file (large ones in parts: an interrupted upload of the same key and file resumes). */
  putFile(key: string, file: string, opts?: { onProgress?: (bytesDone: number) => void }): Promise<void>;
  /** Writes the object into a local file (atomically); false when there is no such object. */
  getFile(key: string, dest: string): Promise<boolean>;
  /** Keys under a prefix ("" lists all), in no particular order; with `limit`, at most that many, the first in
   *  byte order (S3 lists in that order). */
  list(prefix: string, opts?: ListOptions): Promise<string[]>;
}
