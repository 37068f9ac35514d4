// The example configs a new user copies: every recipe has a dry run on the simulator and a template for real
// endpoints (`server.kind: external`), each documented by its header, and each dry run runs exactly as its header says
// (`collab-loop demo <file>`). The templates against servers: external-templates.test.ts.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadRunConfig } from '../../../cli/runs';
import { loadConfig } from '../../../configs/load';
import { cliDevServer } from '../../helpers/cli-server';
import { CONFIGS, tempStateDir } from '../../helpers/config';
import { cli } from '../../helpers/cli';
import { exampleConfig as file, headline, RECIPES, rel } from '../../helpers/example-configs';

const server = cliDevServer();

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
    const r = await cli(['demo', rel(f), '--set', `stateDir=${stateDir}`], { TEMPORAL_ADDRESS: server.env().address });
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
