// A test's HTTP server on a free loopback port, and the pass-through proxy several tests put in front of a real
// server (an LLM endpoint that restarts, SeaweedFS whose requests are counted).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackServer {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Closes open keep-alive connections too, so it never waits on a client that keeps one. */
  close(): Promise<void>;
}

export async function onLoopback(server: http.Server): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A proxy to `upstream` (a base URL) that passes every request through, unless `intercept` answers it with a
 *  status of its own (e.g. a gateway's 502/503/504). */
export function startPassThroughProxy(upstream: string, intercept: (req: http.IncomingMessage) => number | undefined = () => undefined) {
  const to = new URL(upstream);
  return onLoopback(
    http.createServer((req, res) => {
      const status = intercept(req);
      if (status) return void req.resume().on('end', () => res.writeHead(status).end('upstream unavailable'));
      const up = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      req.on('aborted', () => up.destroy());
      req.pipe(up);
    }),
  );
}
