// configs/debate-cpu.yaml, the real CPU path of the debate recipe: a tiny random Llama served by `transformers
// serve` — one server per distinct checkpoint, so six in iteration 1 — and TRL SFT training each of the six roles on
// its own examples. The debates' agents are SIMULATED (a random tiny model cannot debate); serving and training are
// real. The config file itself is loaded, only its state directory and base copy moved into a temp dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../configs/load';
import { sha256Hex } from '../../../activities/storage/content-hash';
import { startDevServer } from '../../helpers/temporal';
import { runLoop } from '../../helpers/run-loop';
import { DEBATE_ROLES as ROLES } from '../../helpers/debate';
import { CONFIGS, tempStateDir } from '../../helpers/config';
import { tinyBaseCheckpoint } from '../../helpers/tiny-model';
import { artifactPath } from '../../helpers/artifacts';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await startDevServer();
});
afterAll(async () => {
  await env?.teardown();
});

const sha = (f: string) => sha256Hex(readFileSync(f));

describe('configs/debate-cpu.yaml (transformers serve + TRL, six trained roles)', () => {
  it('serves one transformers server per role checkpoint and trains each role into its own weights', async () => {
    const stateDir = tempStateDir();
    const base = await tinyBaseCheckpoint(stateDir);
    const { config, runName } = loadConfig(path.join(CONFIGS, 'debate-cpu.yaml'), {
      overrides: [`stateDir=${stateDir}`, `baseCheckpoint=${base}`],
    });
    const result = await runLoop(env, runName, config);
    const [it0, it1] = result.iterations;
    const manifest = (ref: { uri: string }) => JSON.parse(readFileSync(artifactPath(ref), 'utf8'));
    // Iteration 0: all six roles share the base, so one server; iteration 1: six checkpoints, six servers, each probed.
    expect(manifest(it0.manifests.deploy).outputs.servers).toBeUndefined();
    const deploy1 = manifest(it1.manifests.deploy).outputs as {
      servers: Array<{ checkpoint: string; argv: string[] }>;
      roles: Record<string, { checkpoint: string; probe?: { prompts: number } }>;
    };
    expect(deploy1.servers.map((s) => s.checkpoint).sort()).toEqual(ROLES.map((r) => it0.models![r].nextCheckpoint).sort());
    for (const s of deploy1.servers) expect(s.argv.slice(0, 3)).toEqual([expect.stringMatching(/transformers$/), 'serve', s.checkpoint]);
    for (const r of ROLES) expect(deploy1.roles[r].probe?.prompts, r).toBe(2);
    // Every role: TRL trained a loadable Hugging Face model from its own rows; no two roles share weights.
    const weights = new Set<string>();
    for (const r of ROLES) {
      const m = it1.models![r];
      expect(m.checkpoint).toBe(it0.models![r].nextCheckpoint);
      const out = m.nextCheckpoint!;
      expect(existsSync(path.join(out, 'config.json')), r).toBe(true);
      const lineage = JSON.parse(readFileSync(path.join(out, 'collab-loop-checkpoint.json'), 'utf8'));
      expect(lineage).toMatchObject({
        role: r,
        trainer: 'trl',
        method: 'sft',
        baseCheckpoint: m.checkpoint,
        dataset: { sha256: m.dataset!.sha256 },
      });
      expect(m.train?.steps).toBe(4);
      weights.add(sha(path.join(out, 'model.safetensors')));
    }
    expect(weights.size).toBe(6);
  }, 600_000); // six servers and six TRL runs: about 2 min on a quiet 2-core machine, well over 3 when it is loaded
});
