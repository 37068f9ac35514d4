// JSON over node:http the way OpenAI's API answers: a bounded request body, JSON replies, and errors in the shape
// `{ error: { message, type, param, code } }` (OpenAI API reference, "Error codes").
import type http from 'node:http';

/** A route's handler: it reads the body itself (readBody) or drains it (req.resume()) before answering. */
export type RouteHandler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

const MAX_BODY_BYTES = 32 * 1024 * 1024;

export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export const invalid = (message: string, param: string | null = null) =>
  new RequestError(400, message, 'invalid_request_error', null, param);

export const serverError = (message: string) => new RequestError(500, message, 'server_error', null);

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const data = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)), ...headers });
  res.end(data);
}

export function sendError(res: http.ServerResponse, e: RequestError, headers?: Record<string, string>): void {
  sendJson(res, e.status, { error: { message: e.message, type: e.type, param: e.param, code: e.code } }, headers);
}

/** The parsed body, or a 400 for text that is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid('request body is not valid JSON');
  }
}

/** `compute()`, or undefined once a RequestError it throws has been answered; any other error is thrown on. */
export function orAnswerError<T>(res: http.ServerResponse, compute: () => T): T | undefined {
  try {
    return compute();
  } catch (err) {
    if (!(err instanceof RequestError)) throw err;
    sendError(res, err);
    return undefined;
  }
}

/** Calls `then` with the whole body as UTF-8, or answers 413 once a body over the limit has been read to its end. */
export function readBody(req: http.IncomingMessage, res: http.ServerResponse, then: (text: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooBig = true;
    else chunks.push(chunk);
  });
  req.on('end', () => {
    if (tooBig) return sendError(res, new RequestError(413, `request body exceeds ${MAX_BODY_BYTES} bytes`, 'invalid_request_error', null));
    then(Buffer.concat(chunks).toString('utf8'));
  });
}

/** A route that reads no body: drains it, then answers 200 with `body()`. */
export const jsonRoute =
  (body: () => unknown): RouteHandler =>
  (req, res) => {
    req.resume();
    sendJson(res, 200, body());
  };
