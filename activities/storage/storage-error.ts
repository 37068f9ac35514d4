// One clear error for a store that cannot do its job: the message names the store and what to check, so a stage that
// needs attention says "check AWS_SECRET_ACCESS_KEY" rather than printing an SDK's stack.

export class StorageError extends Error {
  override name = 'StorageError';
  /** The S3 error code or network error code behind it (e.g. "NoSuchBucket", "ECONNREFUSED"), when there is one. */
  readonly code?: string;
  /** The store could not be reached or was briefly unable to answer (connection refused or reset, a timeout, a 5xx,
   *  SlowDown): worth trying again. A wrong key or a missing bucket is not. */
  readonly transient: boolean;
  constructor(message: string, code?: string, transient = false) {
    super(message);
    this.code = code;
    this.transient = transient;
  }
}
