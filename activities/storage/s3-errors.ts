// What went wrong talking to an S3 store, said once and in the user's terms: an SDK or network error becomes one
// StorageError naming the store, the endpoint and what to check. Anything else (a local file error, a heartbeat's
// cancellation thrown from onProgress) passes through unchanged.
import { StorageError } from './storage-error';

export interface S3Place {
  /** s3://bucket/prefix */
  location: string;
  /** The endpoint as the user configured it, or "AWS S3 (<region>)". */
  endpoint: string;
  bucket: string;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);
/** What S3 answers when it is overloaded or restarting: retry after a pause (the S3 API reference, "Error responses";
 *  the SDK's own retry treats the same codes as throttling or transient). */
const BUSY_CODES = new Set(['SlowDown', 'ServiceUnavailable', 'InternalError', 'RequestTimeout']);
const DENIED_CODES = new Set(['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'Forbidden', 'InvalidToken', 'ExpiredToken']);

interface SdkLikeError {
  name?: string;
  code?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** The error to throw for `e`, raised while `doing` (e.g. "put artifacts/x.json"). */
export function s3Failure(e: unknown, place: S3Place, doing: string): unknown {
  if (typeof e !== 'object' || e === null || e instanceof StorageError) return e;
  const err = e as SdkLikeError;
  const status = err.$metadata?.httpStatusCode;
  const code = err.Code ?? (err.name && err.name !== 'Error' ? err.name : undefined) ?? err.code;
  const at = `object store ${place.location} at ${place.endpoint}: ${doing}`;
  if (code === 'NoSuchBucket')
    return new StorageError(`${at}: the bucket "${place.bucket}" does not exist there; create it or fix storage.bucket`, code);
  if (code === 'CredentialsProviderError')
    return new StorageError(`${at}: no AWS credentials found; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)`, code);
  if ((code && DENIED_CODES.has(code)) || status === 403)
    return new StorageError(
      `${at}: access denied (${code ?? `HTTP ${status}`}); check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE): they must be valid for this endpoint and allowed to use bucket "${place.bucket}"`,
      code,
    );
  const netCode = [err.code, err.name].find((c) => c && (NETWORK_CODES.has(c) || c === 'TimeoutError'));
  if (netCode)
    return new StorageError(
      `${at}: cannot reach the endpoint (${netCode}); check storage.endpoint and that the server is running`,
      netCode,
      true,
    );
  if (err.$metadata)
    return new StorageError(
      `${at}: ${code ?? 'error'}${status ? ` (HTTP ${status})` : ''}: ${oneLine(err.message)}`,
      code,
      (status !== undefined && status >= 500) || (code !== undefined && BUSY_CODES.has(code)),
    );
  return e;
}

const oneLine = (m: string | undefined) => (m ?? '').split('\n')[0].slice(0, 300);
