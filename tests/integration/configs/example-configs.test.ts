// The example configs a new user copies: every recipe has a dry run on the simulator and a template for real
// endpoints (`server.kind: external`). Each dry run runs exactly as its header says (`collab-loop demo <file>`), and
// each template evaluates against OpenAI-compatible servers under the names, ports and key variable it documents.
// The servers behind the templates are STAND-INS for vLLM: the project's simulator (activities/serving/
// simulator-main.ts, a seeded simulated policy, no weights) in its own process, requiring the API key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { execa, type ResultPromise } from 'execa';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loopConfigSchema } from '../../../configs/schema';
import { recipeDefinition } from '../../../activities/recipes/registry';
import { loadRunConfig } from '../../../cli/runs';
import { loadConfig } from '../../../configs/load';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { startDevServer } from '../../helpers/temporal';
import { CONFIGS, tempStateDir } from '../../helpers/config';
import { cli } from '../../helpers/cli';
import { waitUntil } from '../../helpers/wait';
import { freePort } from '../../../activities/serving/free-port';

/** The metric each recipe leads with (its seed's headline number), to find in the printed table. */
const headline = (recipe: string) => new RegExp(`^${recipeDefinition(recipe).headlineMetric}\\s`, 'm');

/** Every recipe the schema knows: the list lives there once. */
const RECIPES = loopConfigSchema.shape.recipe.options.map((o) => o.shape.name.value);
const file = (recipe: string, kind: 'dry-run' | 'external') => path.join(CONFIGS, `${recipe}.${kind}.yaml`);
const rel = (f: string) => path.relative(PROJECT_ROOT, f);

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

describe('every recipe has a documented dry run and a real-endpoint template', () => {
  it.each(RECIPES)('%s', async (recipe) => {
    for (const [kind, server] of [
      ['dry-run', 'simulator'],
      ['external', 'external'],
    ] as const) {
      const f = file(recipe, kind);
      expect(existsSync(f), `${rel(f)} is missing`).toBe(true);
      const text = readFileSync(f, 'utf8');
      // The checks its header's command runs before connecting (schema, task files, checkpoints): `eval` for a
      // template, which trains nothing and so reads no checkpoint of the GPU host it names.
      const loaded = await loadRunConfig(f, { evalOnly: kind === 'external' });
      expect(loaded.config.recipe.name).toBe(recipe);
      expect(loaded.config.server.kind).toBe(server);
      // Documented: a header that says what it is and the command that runs it, with this very path.
      const header = text.slice(0, text.search(/^[a-z]/m));
      expect(header.split('\n').length, `${rel(f)} header`).toBeGreaterThan(8);
      expect(header).toContain(kind === 'dry-run' ? `collab-loop demo ${rel(f)}` : `collab-loop eval ${rel(f)}`);
      if (kind === 'external') {
        // Secrets are named, never written: every endpoint takes its key from an environment variable.
        for (const m of text.matchAll(/^\s*baseUrl:.*$/gm))
          expect(text.slice(m.index)).toMatch(/^\s*baseUrl:.*\n(?:.*\n){0,2}\s*apiKeyEnv: VLLM_API_KEY/);
      }
    }
  });

  it('every config in configs/ passes the checks `start` runs (where its checkpoints are)', async () => {
    const files = readdirSync(CONFIGS).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(RECIPES.length * 2 + 1);
    for (const f of files) {
      const file = path.join(CONFIGS, f);
      // The templates train from a GPU host's /models/…: here `start` refuses them by that field, and `eval` runs
      // those that evaluate against external endpoints (reading no checkpoint).
      const { config } = loadConfig(file);
      if (config.baseCheckpoint.startsWith('/models/')) {
        await expect(loadRunConfig(file), f).rejects.toThrow(/: baseCheckpoint: checkpoint directory not found: \/models\//);
        if (config.server.kind === 'external') await expect(loadRunConfig(file, { evalOnly: true }), f).resolves.toBeTruthy();
      } else await expect(loadRunConfig(file), f).resolves.toBeTruthy();
    }
  });
});

describe('each dry run runs as its header says', () => {
  it.each(RECIPES)('collab-loop demo configs/%s.dry-run.yaml', async (recipe) => {
    const f = file(recipe, 'dry-run');
    const iterations = (parseYaml(readFileSync(f, 'utf8')) as { iterations: number }).iterations;
    const stateDir = tempStateDir();
    const r = await cli(['demo', rel(f), '--set', `stateDir=${stateDir}`], { TEMPORAL_ADDRESS: env.address });
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(/^finished in /m);
    // The metrics table has a column per iteration and the recipe's metrics in it; every iteration trained.
    const header = r.all!.split('\n').find((l) => l.startsWith('metric '))!;
    expect(header.trim().split(/\s+/).slice(1)).toEqual(Array.from({ length: iterations }, (_, i) => ['iter', String(i)]).flat());
    expect(r.all).toMatch(headline(recipe));
    expect(r.all!.match(/trained \d+ steps → /g)).toHaveLength(iterations);
    // One line per stage, with no counts of another stage and no stray state word; each iteration's line gives the
    // numbers the table gives.
    const lines = r.stdout.split('\n');
    const last = iterations - 1;
    const stageLine = new RegExp(`^iteration \\d+ \\(of 0–${last}\\) · stage (deploy|generate|evaluate|build-data|undeploy|train)$`);
    for (const l of lines.filter((l) => l.includes(' · stage '))) expect(l).toMatch(stageLine);
    for (let i = 0; i <= last; i++)
      for (const stage of ['generate', 'train']) expect(lines).toContain(`iteration ${i} (of 0–${last}) · stage ${stage}`);
    expect(lines.filter((l) => /^\s*(running|completed)\s*$/.test(l))).toEqual([]);
    const table = new Map(lines.map((l) => l.trim().split(/\s{2,}/)).map(([k, ...v]) => [k, v]));
    for (let i = 0; i <= last; i++) {
      const done = lines.find((l) => l.startsWith(`iteration ${i} done: `));
      const pairs = [...(done ?? '').matchAll(/ (\w+)=(\S+)/g)];
      expect(pairs.length, r.stdout).toBeGreaterThan(2);
      for (const [, key, value] of pairs) expect(table.get(key)?.[i], `iteration ${i}: ${key}`).toBe(value);
    }
  });
});

/** A stand-in for `vllm serve <model> --served-model-name <name> --port <port>` that requires VLLM_API_KEY. */
async function standInServer(name: string, port: number, policy: string, tasks: string, key: string): Promise<{ child: ResultPromise }> {
  const child = execa(
    process.execPath,
    [
      '--import',
      'tsx',
      'activities/serving/simulator-main.ts',
      '--model',
      name,
      '--port',
      String(port),
      '--policy',
      policy,
      '--tasks',
      tasks,
      '--api-key-env',
      'VLLM_API_KEY',
    ],
    { cwd: PROJECT_ROOT, env: { VLLM_API_KEY: key }, reject: false, all: true },
  );
  let out = '';
  child.all!.on('data', (d: Buffer) => {
    out += d;
  });
  await waitUntil(async () => out.includes('listening') || child.exitCode !== null, 60_000, `stand-in ${name} listening`);
  if (!out.includes('listening')) throw new Error(`stand-in ${name} exited: ${out}`);
  return { child }; // wrapped: an execa process is a thenable, and returning it would wait for its exit
}

/** The ports and served names a template documents: `baseUrl: http://127.0.0.1:<port>/v1` with `model: <name>`. */
function documentedEndpoints(text: string): Array<{ port: number; model: string }> {
  const seen = new Map<number, string>();
  for (const m of text.matchAll(/baseUrl: http:\/\/127\.0\.0\.1:(\d+)\/v1\s*\n\s*model: (\S+)/g)) seen.set(Number(m[1]), m[2]);
  return [...seen].map(([port, model]) => ({ port, model }));
}

describe('each real-endpoint template evaluates against the servers it documents', () => {
  it.each(RECIPES)('collab-loop eval configs/%s.external.yaml', async (recipe) => {
    const f = file(recipe, 'external');
    const text = readFileSync(f, 'utf8');
    const cfg = (await loadRunConfig(f, { evalOnly: true })).config;
    const endpoints = documentedEndpoints(text);
    expect(endpoints.length).toBeGreaterThan(0);
    const key = `test-key-${recipe}`;
    // The documented ports may be taken on this machine: the same servers on free ports, named as documented.
    const ports = await Promise.all(endpoints.map(() => freePort()));
    const tasks = `${cfg.recipe.evalTasks}:${recipeDefinition(recipe).simulator.taskKind(cfg.recipe)}`;
    const servers = await Promise.all(endpoints.map((e, i) => standInServer(e.model, ports[i], recipe, tasks, key)));
    try {
      const moved = (t: string) => endpoints.reduce((s, e, i) => s.replaceAll(`127.0.0.1:${e.port}/v1`, `127.0.0.1:${ports[i]}/v1`), t);
      const overrides = ['--set', `stateDir=${tempStateDir()}`, '--set', 'recipe.limit=3'];
      for (const [keyPath, url] of endpointPaths(cfg)) overrides.push('--set', `${keyPath}=${moved(url)}`);
      // Without the key the evaluation stops at its first call and says which variable the worker lacks (the same
      // code for every recipe: checked with the first).
      if (recipe === RECIPES[0]) {
        const missing = await cli(['eval', rel(f), ...overrides, '--name', `${recipe}-no-key`], { TEMPORAL_ADDRESS: env.address });
        expect(missing.exitCode).not.toBe(0);
        expect(missing.all).toContain('VLLM_API_KEY');
      }
      const r = await cli(['eval', rel(f), ...overrides, '--name', `${recipe}-eval`], { TEMPORAL_ADDRESS: env.address, VLLM_API_KEY: key });
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).toMatch(/^metric\s+iter 0$/m);
      expect(r.all).toMatch(headline(recipe));
      expect(r.all).not.toContain(key); // the key never shows
    } finally {
      for (const s of servers) s.child.kill('SIGTERM');
      await Promise.all(servers.map((s) => s.child));
    }
  });
});

/** Config key paths of every endpoint URL a loaded config holds (`--set` spelling). */
function endpointPaths(cfg: Awaited<ReturnType<typeof loadRunConfig>>['config']): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (v: unknown, at: string[]) => {
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'baseUrl' && typeof x === 'string') out.push([[...at, k].join('.'), x]);
      else walk(x, [...at, k]);
    }
  };
  walk(cfg, []);
  return out;
}
