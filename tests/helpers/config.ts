// Test configs: the demo's shape, on a private state directory, with small numbers.
import { mkdtempSync, cpSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loopConfigSchema } from '../../configs/schema';
import type { LoopConfig } from '../../contracts/config';
import { type ConfigError, loadConfig, resolveConfigPaths } from '../../configs/load';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';

export const CONFIGS = path.join(PROJECT_ROOT, 'configs');

/** The ConfigError of the demo config with these `--set` overrides (it must fail). */
export function demoConfigError(overrides: string[]): ConfigError {
  try {
    loadConfig(path.join(CONFIGS, 'demo.yaml'), { overrides });
  } catch (e) {
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

export function tempStateDir(prefix = 'collab-loop-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A base simulator checkpoint copied into the state dir, so tests never write into the repo. */
export function baseCheckpointIn(stateDir: string, skill = 0.45): string {
  const dir = path.join(stateDir, 'base-checkpoint');
  cpSync(path.join(CONFIGS, 'checkpoints', 'sim-base'), dir, { recursive: true });
  if (skill !== 0.45) {
    writeFileSync(path.join(dir, 'simulated-policy.json'), JSON.stringify({ skill, agreeability: 0.7 }));
  }
  return dir;
}

export const STAND_IN_TRAINER = [
  'node',
  'bin/run-script.js',
  'scripts/stand-in-trainer.ts',
  '--base',
  '{checkpoint}',
  '--data',
  '{data}',
  '--output',
  '{output}',
  '--method',
  '{method}',
  '--resume-from',
  '{resume_from}',
  '--step-ms',
  '20',
];

/** The test config as a user would write it (before validation), e.g. to save as a YAML file for the CLI. */
export function testConfigRaw(stateDir: string, patch: (raw: Record<string, any>) => void = () => {}): Record<string, any> {
  const raw: Record<string, any> = {
    name: 'test',
    iterations: 2,
    seed: 3,
    stateDir,
    baseCheckpoint: baseCheckpointIn(stateDir),
    recipe: {
      name: 'coral',
      dataset: 'mmlu_pro',
      evalTasks: path.join(CONFIGS, 'tasks/coral-demo/mmlu_pro.jsonl'),
      trainTasks: path.join(CONFIGS, 'tasks/coral-demo/mmlu_pro.jsonl'),
      maxTurns: 4,
      maxTokens: 256,
      evalSamples: 1,
      trainSamples: 1,
      beamSize: 3,
      limit: 8,
    },
    server: { kind: 'simulator' },
    trainer: { kind: 'command', method: 'dpo', command: STAND_IN_TRAINER, heartbeatTimeoutSeconds: 10 },
    generation: { shardSize: 4, concurrency: 8, heartbeatTimeoutSeconds: 5 },
    llm: { callRetries: 2, maxRetryDelaySeconds: 1 },
  };
  patch(raw);
  return raw;
}

export function testConfig(stateDir: string, patch: (raw: Record<string, any>) => void = () => {}): LoopConfig {
  return resolveConfigPaths(loopConfigSchema.parse(testConfigRaw(stateDir, patch)), path.join(stateDir, 'test.yaml'));
}
