// Process entry of the dry-run model server (a SIMULATOR: no model, no GPU). `deploy.kind: simulator` starts it
// per checkpoint; it answers from a recipe's seeded simulated policy whose skill comes from the checkpoint's
// simulated-policy.json, so a trained checkpoint really is served and queried in the next iteration.
//
//   node bin/run-script.js activities/serving/simulator-main.ts --model sim-base --policy coral \
//     --tasks configs/tasks/coral-demo/mmlu_pro.jsonl:mmlu_pro --policy-file configs/checkpoints/sim-base/simulated-policy.json
//
// Usage errors (bad flag, unreadable task or policy file) print one line on stderr and exit with code 2.
import { Command, type CommanderError } from 'commander';
import { accessSync, constants, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../artifacts/store';
import { FAULT_KINDS, type FaultKind, type FaultOptions } from './faults';
import { echoPolicy, startOpenAICompatibleServer, type Policy } from './openai-compatible-server';

function fail(msg: string, code = 2): never {
  console.error(`collab-loop simulator: ${msg.replace(/\s*\n\s*/g, ' ')}`);
  process.exit(code);
}

const collect = (v: string, prev: string[]) => [...prev, v];
const program = new Command('simulator-main')
  .description('OpenAI-compatible dry-run model server answering from a SIMULATED policy')
  .requiredOption('--model <name>', 'served model name (requests must match it exactly)')
  .option('--port <n>', 'port (0 = pick a free one)', '0')
  .option('--host <host>', 'interface to listen on', '127.0.0.1')
  .option('--policy <recipe>', "echo, or a recipe name (coral, colbench-code, …): that recipe's simulated policy", 'echo')
  .option(
    '--tasks <file:kind>',
    'task file and how the recipe reads it (CoRal: its dataset; ColBench: code|html), repeatable',
    collect,
    [] as string[],
  )
  .option('--policy-file <json>', 'checkpoint simulated-policy file {"skill", "agreeability"}')
  .option('--latency-ms <n>', 'fixed latency of every request', '0')
  .option('--answer-gate <file>', 'serve the n-th request once this file is gone or holds a number >= n (tests)')
  .option('--capacity <n>', 'requests in service at once (default unlimited)')
  .option('--fault-rate <x>', 'fraction of requests that fail, in [0, 1]', '0')
  .option('--fault-kinds <list>', `comma-separated, among ${FAULT_KINDS.join(',')}`, '429,500,reset')
  .option('--fault-seed <n>', 'seed of the fault sequence', '1')
  .option('--api-key-env <VAR>', 'require "Authorization: Bearer <key>" with the key held by this env var')
  .option('--ready-file <path>', 'write {"url","port","pid"} here (atomically) once listening')
  .exitOverride()
  .configureOutput({ outputError: (str, write) => write(`collab-loop simulator: ${str.replace(/^error: /, '')}`) });

interface Flags {
  model: string;
  port: string;
  host: string;
  policy: string;
  tasks: string[];
  policyFile?: string;
  latencyMs: string;
  answerGate?: string;
  capacity?: string;
  faultRate: string;
  faultKinds: string;
  faultSeed: string;
  apiKeyEnv?: string;
  readyFile?: string;
}

let o: Flags;
try {
  o = program.parse(process.argv).opts<Flags>();
} catch (err) {
  // Commander has already printed the message (or the help text).
  const e = err as CommanderError;
  process.exit(e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : 2);
}

function num(flag: string, v: string, { min = 0, max = Infinity, integer = false } = {}): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
    fail(`${flag}: "${v}" is not ${integer ? 'an integer' : 'a number'} in [${min}, ${max === Infinity ? '∞' : max}]`);
  return n;
}

function readPolicyFile(file: string): { skill: number; agreeability?: number } {
  let p: { skill?: unknown; agreeability?: unknown };
  try {
    p = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    fail(`--policy-file ${file}: ${e.code ? `cannot be read (${e.code})` : `is not valid JSON (${e.message})`}`);
  }
  const unit = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
  if (!p || typeof p !== 'object' || !unit(p.skill)) fail(`--policy-file ${file}: "skill" must be a number in [0, 1]`);
  if (p.agreeability !== undefined && !unit(p.agreeability)) fail(`--policy-file ${file}: "agreeability" must be a number in [0, 1]`);
  return { skill: p.skill as number, agreeability: p.agreeability as number | undefined };
}

function taskSpecs(): Array<{ spec: string; file: string; dataset: string }> {
  if (o.tasks.length === 0) fail(`--policy ${o.policy} needs at least one --tasks <file>:<dataset>`);
  return o.tasks.map((spec) => {
    const i = spec.lastIndexOf(':');
    if (i <= 0 || i === spec.length - 1) fail(`--tasks "${spec}" must look like <file>:<dataset>`);
    const file = spec.slice(0, i);
    try {
      accessSync(file, constants.R_OK);
    } catch (err) {
      fail(`--tasks ${spec}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    return { spec, file, dataset: spec.slice(i + 1) };
  });
}

/** The recipe's own simulated policy over the task files (loaded only for it: the echo server needs no recipe). */
async function buildPolicy(): Promise<Policy> {
  if (o.policy === 'echo') return echoPolicy;
  let registry: typeof import('../recipes/registry');
  try {
    registry = await import('../recipes/registry');
  } catch (err) {
    fail(`--policy ${o.policy}: cannot load the recipes (${(err as Error).message})`, 1);
  }
  const recipe = registry.RECIPES.find((r) => r.name === o.policy);
  if (!recipe) fail(`--policy: unknown policy "${o.policy}" (echo | ${registry.RECIPE_NAMES.join(' | ')})`);
  const { skill, agreeability } = o.policyFile ? readPolicyFile(o.policyFile) : { skill: 0.5, agreeability: undefined };
  const files = taskSpecs().map(({ file, dataset }) => ({ file, kind: dataset }));
  try {
    return recipe.simulator.policy(files, { skill, agreeability }) as Policy;
  } catch (err) {
    fail(`--tasks: ${(err as Error).message}`);
  }
}

function faultOptions(): FaultOptions | undefined {
  const rate = num('--fault-rate', o.faultRate, { max: 1 });
  const kinds = o.faultKinds
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length) fail(`--fault-kinds: unknown ${unknown.join(', ')} (known: ${FAULT_KINDS.join(', ')})`);
  if (rate > 0 && kinds.length === 0) fail('--fault-kinds: empty, but --fault-rate > 0');
  const seed = num('--fault-seed', o.faultSeed, { min: -(2 ** 31), max: 2 ** 32, integer: true });
  return rate > 0 ? { rate, kinds: kinds as FaultKind[], seed } : undefined;
}

const policy = await buildPolicy();
const faults = faultOptions();
let apiKey: string | undefined;
if (o.apiKeyEnv) {
  apiKey = process.env[o.apiKeyEnv];
  if (!apiKey) fail(`--api-key-env: environment variable ${o.apiKeyEnv} is not set`);
}
const port = num('--port', o.port, { max: 65535, integer: true });
const latencyMs = num('--latency-ms', o.latencyMs);
const capacity = o.capacity === undefined ? undefined : num('--capacity', o.capacity, { min: 1, integer: true });

const server = await startOpenAICompatibleServer({
  host: o.host,
  port,
  modelName: o.model,
  policy,
  latencyMs,
  answerGate: o.answerGate,
  capacity,
  faults,
  apiKey,
}).catch((err: Error) => fail(`cannot listen on ${o.host}:${port}: ${err.message}`, 1));
if (o.readyFile) {
  try {
    writeFileAtomic(o.readyFile, JSON.stringify({ url: server.url, port: server.port, pid: process.pid }));
  } catch (err) {
    await server.close();
    fail(`--ready-file ${o.readyFile}: ${(err as Error).message}`);
  }
}
console.log(`collab-loop simulator listening on ${server.url} (model ${o.model}, SIMULATED policy)`);

let stopping = false;
const shutdown = () => {
  if (stopping) process.exit(0); // a second signal: don't wait
  stopping = true;
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
