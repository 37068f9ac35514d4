// The baseline of bench-llm-cpu.ts: the plainest client that keeps `inFlight` chat requests outstanding — behind a
// semaphore, nothing cached, counted or retried — in a process of its own, sending the request the worker sends (the
// file holds its JSON body). `fetch`: Node's fetch, the plain choice (and the openai SDK's default transport);
// `http`: node:http with a keep-alive agent, the transport the worker gives its SDK client (activities/llm/sdk-fetch.ts
// over post-json.ts); `sdk`: the openai SDK client the worker uses (activities/llm/openai-client.ts, over that
// transport), so the reader sees what the SDK itself costs per call without the worker around it. Prints
// {calls, cpuMs, wallMs} of its sending loop as one JSON line.
//
//   node --import tsx scripts/bench-plain-client.ts fetch|http|sdk <base-url> <calls> <in-flight> <request-body.json>
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { Semaphore } from '../activities/llm/limiter';
import { openaiClient } from '../activities/llm/openai-client';
import { sdkCall } from '../activities/llm/sdk-fetch';

const [transport, url, callsArg, inFlightArg, bodyFile] = process.argv.slice(2);
const calls = Number(callsArg);
const limit = new Semaphore(Number(inFlightArg));
const request = JSON.parse(readFileSync(bodyFile, 'utf8')) as { messages: Array<{ role: string; content: string }> };
const agent = new http.Agent({ keepAlive: true });

async function viaFetch(body: string): Promise<unknown> {
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!res.ok) throw new Error(`plain client: HTTP ${res.status}`);
  return res.json();
}

function viaHttp(body: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/chat/completions`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.statusCode === 200 ? resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))) : reject(new Error(`HTTP ${res.statusCode}`)),
      );
    });
    req.end(body);
  });
}

const sdk = openaiClient(`${url}/v1`, undefined);
let sent = 0;
/** As activities/llm/client.ts sends: a request key header, the call's timeout in fetchOptions, the body read raw. */
async function viaSdk(body: string): Promise<unknown> {
  const params = JSON.parse(body) as Parameters<typeof sdk.chat.completions.create>[0];
  const response = await sdk.chat.completions
    .create(params, { headers: { 'x-collab-request-key': String(sent++) }, timeout: 65_000, ...sdkCall({ timeoutMs: 60_000 }) })
    .asResponse();
  return response.json();
}

const transports: Record<string, (body: string) => Promise<unknown>> = { http: viaHttp, sdk: viaSdk, fetch: viaFetch };
const post = transports[transport];
if (!post) throw new Error(`bench-plain-client: transport is fetch, http or sdk, not ${transport}`);
const cpu = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: calls }, (_, i) =>
    limit.run(async () => {
      // A distinct request each time, as the worker's samples are.
      const messages = request.messages.map((m) => ({ ...m, content: `${m.content} #${i}` }));
      const body = (await post(JSON.stringify({ ...request, messages }))) as { choices: Array<{ message: { content: string } }> };
      return body.choices[0].message.content;
    }),
  ),
);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ calls, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - t0 }));
