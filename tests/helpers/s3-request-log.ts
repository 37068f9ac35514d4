// A pass-through HTTP proxy in front of the test's SeaweedFS that logs every S3 request (method and path+query):
// what a test counts to show which requests a store operation makes, seen on the wire as the server gets them.
import { startPassThroughProxy } from './loopback-server';

export interface S3RequestLog {
  /** The proxy's URL: a `storage.endpoint` whose requests are logged. */
  endpoint: string;
  /** "GET /bucket/key?query", in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startS3RequestLog(target: string): Promise<S3RequestLog> {
  const requests: string[] = [];
  const proxy = await startPassThroughProxy(target, (req) => {
    requests.push(`${req.method} ${req.url}`);
    return undefined;
  });
  return { endpoint: proxy.url, requests, close: proxy.close };
}
