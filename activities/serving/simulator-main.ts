// Process entry of the dry-run model server: `deploy.kind: simulator` starts it per checkpoint. It answers from
// a recipe's seeded SIMULATED policy (no model, no GPU) whose skill comes from the checkpoint's
// simulated-policy.json, so a trained checkpoint really is served and queried in the next iteration.
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../artifacts/store';
import { createCoralSimulatedPolicy, loadCoralTasks, type CoralDataset, type CoralTask } from '../recipes/coral';
import { echoPolicy, startOpenAICompatibleServer, type FaultOptions, type Policy } from './openai-compatible-server';

function fail(msg: string): never {
  console.error(`collab-loop simulator: ${msg}`);
  process.exit(2);
}

const collect = (v: string, prev: string[]) => [...prev, v];
const o = new Command('simulator')
  .option('--port <n>', 'port (0 = free)', '0')
  .option('--host <h>', 'host', '127.0.0.1')
  .requiredOption('--model <name>', 'served model name')
  .option('--policy <kind>', 'echo | coral', 'echo')
  .option('--tasks <file:dataset>', 'task file with its dataset (coral; repeatable)', collect, [])
  .option('--policy-file <json>', 'checkpoint policy file {"skill", "agreeability"}')
  .option('--latency-ms <n>', 'fixed latency per request', '0')
  .option('--capacity <n>', 'requests served at once')
  .option('--fault-rate <x>', 'fraction of requests that fail', '0')
  .option('--fault-kinds <list>', '429,500,reset,timeout', '429,500,reset')
  .option('--fault-seed <n>', 'seed of the fault sequence', '1')
  .option('--api-key-env <VAR>', 'require the key held by this env var')
  .option('--ready-file <path>', 'write {"url","port","pid"} here once listening')
  .parse(process.argv)
  .opts<Record<string, string | string[] | undefined>>();

function buildPolicy(): Policy {
  if (o.policy === 'echo') return echoPolicy;
  if (o.policy !== 'coral') fail(`--policy: unknown policy "${String(o.policy)}" (echo | coral)`);
  const tasks: CoralTask[] = [];
  for (const spec of o.tasks as string[]) {
    const i = spec.lastIndexOf(':');
    if (i <= 0) fail(`--tasks "${spec}" must look like <file>:<dataset>`);
    try {
      tasks.push(...loadCoralTasks(spec.slice(0, i), spec.slice(i + 1) as CoralDataset));
    } catch (err) {
      fail(`--tasks ${spec}: ${(err as Error).message}`);
    }
  }
  let skill = 0.5;
  let agreeability: number | undefined;
  if (o.policyFile) {
    try {
      const p = JSON.parse(readFileSync(o.policyFile as string, 'utf8')) as { skill?: number; agreeability?: number };
      if (typeof p.skill !== 'number' || p.skill < 0 || p.skill > 1) fail(`--policy-file ${String(o.policyFile)}: "skill" must be a number in [0, 1]`);
      skill = p.skill;
      agreeability = p.agreeability;
    } catch (err) {
      fail(`--policy-file ${String(o.policyFile)}: ${(err as Error).message}`);
    }
  }
  return createCoralSimulatedPolicy({ tasks, skill, agreeability });
}

const num = (flag: string, v: unknown): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) fail(`${flag}: "${String(v)}" is not a non-negative number`);
  return n;
};

const policy = buildPolicy();
const rate = num('--fault-rate', o.faultRate);
const faults: FaultOptions | undefined = rate > 0
  ? { rate, kinds: String(o.faultKinds).split(',') as FaultOptions['kinds'], seed: num('--fault-seed', o.faultSeed) }
  : undefined;
let apiKey: string | undefined;
if (o.apiKeyEnv) {
  apiKey = process.env[o.apiKeyEnv as string];
  if (!apiKey) fail(`--api-key-env: environment variable ${String(o.apiKeyEnv)} is not set`);
}

const server = await startOpenAICompatibleServer({
  host: o.host as string, port: num('--port', o.port), modelName: o.model as string, policy,
  latencyMs: num('--latency-ms', o.latencyMs), capacity: o.capacity ? num('--capacity', o.capacity) : undefined, faults, apiKey,
}).catch((err: Error) => fail(`cannot listen: ${err.message}`));
if (o.readyFile) writeFileAtomic(o.readyFile as string, JSON.stringify({ url: server.url, port: server.port, pid: process.pid }));
console.log(`collab-loop simulator listening on ${server.url} (model ${String(o.model)}, SIMULATED policy "${String(o.policy)}")`);
const shutdown = () => { void server.close().then(() => process.exit(0)); };
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
