// Each real-endpoint template (configs/<recipe>.external.yaml) evaluates against OpenAI-compatible servers under the
// names, ports and key variable it documents. The servers behind the templates are STAND-INS for vLLM: the project's
// simulator (activities/serving/simulator-main.ts, a seeded simulated policy, no weights) in its own process,
// requiring the API key.
import { describe, expect, it } from 'vitest';
import { execa, type ResultPromise } from 'execa';
import { readFileSync } from 'node:fs';
import { recipeDefinition } from '../../../activities/recipes/registry';
import { loadRunConfig } from '../../../cli/runs';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { cliDevServer } from '../../helpers/cli-server';
import { tempStateDir } from '../../helpers/config';
import { cli } from '../../helpers/cli';
import { waitUntil } from '../../helpers/wait';
import { freePort } from '../../../activities/serving/free-port';
import { exampleConfig as file, headline, RECIPES, rel } from '../../helpers/example-configs';

const server = cliDevServer();

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
        const missing = await cli(['eval', rel(f), ...overrides, '--name', `${recipe}-no-key`], { TEMPORAL_ADDRESS: server.env().address });
        expect(missing.exitCode).not.toBe(0);
        expect(missing.all).toContain('VLLM_API_KEY');
      }
      const r = await cli(['eval', rel(f), ...overrides, '--name', `${recipe}-eval`], {
        TEMPORAL_ADDRESS: server.env().address,
        VLLM_API_KEY: key,
      });
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
