// A real HTTP server for client tests: it records every request (JSON body parsed) and lets the test answer it.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { onLoopback } from './loopback-server';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A real HTTP server: `answer` gets each request (JSON body parsed) and writes the response, or never does. */
export async function startServer(answer: (req: Received, res: ServerResponse) => void): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: raw ? JSON.parse(raw) : undefined };
      received.push(r);
      answer(r, res);
    });
  });
  const { url, close } = await onLoopback(server);
  return { url, received, close };
}

export const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};
