// The bench's chat endpoint: a bare node:http server that answers every chat completion with one fixed reply after
// a fixed latency, doing as little as it can per request so that it is never what bounds the clients measured
// against it (bench-llm-cpu.ts). No queue, no policy, no body parsing: the simulator (activities/serving/) does
// those for tests and dry runs.
//
//   node --import tsx scripts/bench-endpoint.ts <latency-ms> <ready-file>
//
// GET /stats → {completed, firstMs, lastMs, cpuMs, maxInFlight}: requests answered since the last POST /reset, the
// first arrival and last answer on this process's clock, and this process's own CPU.
import http from 'node:http';
import { writeFileAtomic } from '../activities/artifacts/store';

const [latencyArg, readyFile] = process.argv.slice(2);
const latencyMs = Number(latencyArg);
if (!(latencyMs >= 0) || !readyFile) {
  console.error('usage: bench-endpoint.ts <latency-ms> <ready-file>');
  process.exit(2);
}

const reply = Buffer.from(
  JSON.stringify({
    id: 'bench',
    object: 'chat.completion',
    created: 0,
    model: 'bench-model',
    choices: [
      { index: 0, message: { role: 'assistant', content: 'Each step adds up. The answer is \\boxed{14}.' }, finish_reason: 'stop' },
    ],
    usage: { prompt_tokens: 64, completion_tokens: 12, total_tokens: 76 },
  }),
);
const models = Buffer.from(
  JSON.stringify({ object: 'list', data: [{ id: 'bench-model', object: 'model', created: 0, owned_by: 'bench' }] }),
);
const JSON_HEADERS = { 'content-type': 'application/json' };

let s = { completed: 0, firstMs: 0, lastMs: 0, inFlight: 0, maxInFlight: 0, cpu: process.cpuUsage() };

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    const cpu = process.cpuUsage(s.cpu);
    const { completed, firstMs, lastMs, maxInFlight } = s;
    res
      .writeHead(200, JSON_HEADERS)
      .end(JSON.stringify({ completed, firstMs, lastMs, maxInFlight, cpuMs: (cpu.user + cpu.system) / 1000 }));
    return;
  }
  if (req.method === 'POST' && req.url === '/reset') {
    s = { completed: 0, firstMs: 0, lastMs: 0, inFlight: 0, maxInFlight: 0, cpu: process.cpuUsage() };
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && req.url?.endsWith('/models')) {
    res.writeHead(200, JSON_HEADERS).end(models);
    return;
  }
  req.resume(); // the body is not needed, only drained
  if (!s.firstMs) s.firstMs = performance.now();
  s.maxInFlight = Math.max(s.maxInFlight, ++s.inFlight);
  req.on('end', () =>
    setTimeout(() => {
      res.writeHead(200, JSON_HEADERS).end(reply);
      s.inFlight--;
      s.completed++;
      s.lastMs = performance.now();
    }, latencyMs),
  );
});
server.keepAliveTimeout = 60_000; // clients keep their 512 connections for the whole run
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  writeFileAtomic(readyFile, JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid }));
});
process.on('SIGTERM', () => process.exit(0));
