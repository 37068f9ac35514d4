// A small JSON-over-HTTP service (node:http): POST routes whose handlers take the parsed body and return the answer.
// The train stage runs one beside an RL trainer (activities/training/online-reward.ts): the trainer's Python plug-ins
// ask it for user turns and rewards, so that logic stays in this project's TypeScript.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request is wrong (a missing field, a bad value): answered 400 with the message; retrying cannot help. */
export class BadRequest extends Error {
  override name = 'BadRequest';
}

export type JsonRoutes = Record<string, (body: unknown) => Promise<unknown>>;

export interface RunningJsonService {
  /** http://HOST:PORT, no trailing slash. */
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024 * 1024;

export async function startJsonService(o: {
  routes: JsonRoutes;
  host?: string;
  /** 0 (default): a free port. */
  port?: number;
  /** Called with every handler failure other than BadRequest (answered 500: the client retries those). */
  onError?: (path: string, err: unknown) => void;
}): Promise<RunningJsonService> {
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const server = http.createServer((req, res) => {
    const route = req.url ? o.routes[req.url.split('?')[0]] : undefined;
    if (req.method === 'GET' && req.url === '/health') return send(res, 200, { ok: true, routes: Object.keys(o.routes) });
    if (!route || req.method !== 'POST') return send(res, 404, { error: `no route ${req.method} ${req.url}` });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, 400, { error: 'the body is not JSON' });
      }
      try {
        send(res, 200, await route(body));
      } catch (err) {
        if (err instanceof BadRequest) return send(res, 400, { error: err.message });
        o.onError?.(req.url ?? '', err);
        send(res, 500, { error: err instanceof Error ? err.message : String(err) });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
