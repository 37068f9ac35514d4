// A pass-through HTTP proxy in front of the test's SeaweedFS that logs every S3 request (method and path+query):
// what a test counts to show which requests a store operation makes, seen on the wire as the server gets them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface S3RequestLog {
  /** The proxy's URL: a `storage.endpoint` whose requests are logged. */
  endpoint: string;
  /** "GET /bucket/key?query", in arrival order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startS3RequestLog(target: string): Promise<S3RequestLog> {
  const to = new URL(target);
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.on('aborted', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
