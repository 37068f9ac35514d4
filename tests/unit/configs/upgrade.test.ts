// A run started by earlier code hands its activities the config it was started with: every such config upgrades to
// the current format, with the schema's defaults for what came later and, where a field's absence meant something
// else than its default, what it meant; a config of a newer format is one clear error.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CONFIG_VERSION, llmSchema, loopConfigSchema } from '../../../configs/schema';
import { NewerConfigError, upgradeConfig, upgradeRaw } from '../../../configs/upgrade';
import { ConfigError, parseConfigText } from '../../../configs/load';
import { historyFiles, recordedConfigs } from '../../helpers/recorded-configs';
import { CONFIGS } from '../../helpers/config';

/** The first config a history recorded: its workflow's start input's. */
const recorded = (file: string) => recordedConfigs(file)[0];
const current = () => parseConfigText(readFileSync(path.join(CONFIGS, 'demo.yaml'), 'utf8'), 'demo.yaml');
describe('configs recorded before versions (version 0)', () => {
  it('upgrade to a config the current schema accepts, with the defaults of what came later', () => {
    const old = recorded('iteration-coral.json');
    expect(old.configVersion).toBeUndefined();
    expect(old.storage).toBeUndefined();
    const up = upgradeConfig(old);
    expect(loopConfigSchema.parse(up)).toEqual(up);
    expect(up.configVersion).toBe(CONFIG_VERSION);
    expect(up.llm.outageToleranceSeconds).toBe(llmSchema.parse({}).outageToleranceSeconds);
    expect(up.storage).toEqual({ kind: 'local' });
    expect(up.models).toEqual({});
    // What the run was started with stays.
    expect(up.recipe).toMatchObject(old.recipe as object);
    expect(up.llm).toMatchObject(old.llm as object);
    expect(up.baseCheckpoint).toBe(old.baseCheckpoint);
  });

  it('keep what a field meant before it existed where that is not its default', () => {
    // debate: every other agent, in agent order; a file written today shuffles and shows 5.
    const debate = upgradeConfig(recorded('iteration-debate-recipe-needs.json'));
    expect(debate.recipe.name === 'debate' && debate.recipe.others).toEqual({ shuffle: false, max: Number.MAX_SAFE_INTEGER });
    // ColBench: the judge ranked SWEET-RL's candidates; a file written today trains the learned critic.
    const colbench = upgradeConfig(recorded('iteration-colbench-recipe-needs.json'));
    expect(colbench.recipe.name === 'colbench-code' && colbench.recipe.data.critic).toBe('judge');
    const file = parseConfigText(readFileSync(path.join(CONFIGS, 'colbench-code.dry-run.yaml'), 'utf8'), 'colbench-code.dry-run.yaml');
    expect(file.recipe.name === 'colbench-code' && file.recipe.data.critic).toBe('learned');
  });

  it('every config of every recorded history upgrades', () => {
    const files = historyFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const configs = recordedConfigs(f);
      expect(configs.length, f).toBeGreaterThan(0);
      for (const c of configs) expect(() => loopConfigSchema.parse(upgradeConfig(c)), f).not.toThrow();
    }
  });
});

describe('configs of version 1', () => {
  it('keep shards of the size they had: shardSize counted tasks, every sample of each', () => {
    const v1 = (generation: object, recipe: object) => ({
      ...current(),
      configVersion: 1,
      generation,
      recipe: { ...current().recipe, ...recipe },
    });
    // demo.yaml trains: the larger split's samples per task.
    const trains = upgradeConfig(v1({ shardSize: 8 }, { evalSamples: 2, trainSamples: 3 }));
    expect(trains.generation.shardSize).toBe(24);
    // No shardSize: the old default, 100 tasks.
    expect(upgradeConfig(v1({}, { evalSamples: 2, trainSamples: 1 })).generation.shardSize).toBe(200);
    // Evaluation only: the train split's samples do not count.
    const { trainTasks: _, ...evalOnly } = current().recipe as Record<string, unknown>;
    const recipe = { ...evalOnly, evalSamples: 4, trainSamples: 9 };
    expect(upgradeConfig({ ...current(), configVersion: 1, generation: { shardSize: 5 }, recipe }).generation.shardSize).toBe(20);
  });
});

describe('current configs', () => {
  it('are left as they are', () => {
    const config = current();
    expect(config.configVersion).toBe(CONFIG_VERSION);
    expect(upgradeRaw(config, 0)).toBe(config);
    expect(upgradeConfig(config)).toEqual(config);
  });

  it('a file without configVersion is read as the current format', () => {
    const text = readFileSync(path.join(CONFIGS, 'demo.yaml'), 'utf8');
    expect(text).not.toMatch(/configVersion/);
    expect(current().configVersion).toBe(CONFIG_VERSION);
  });
});

describe('configs of a newer format', () => {
  const newer = () => ({ ...current(), configVersion: CONFIG_VERSION + 1 });

  it('are one clear error where an activity receives one', () => {
    expect(() => upgradeConfig(newer())).toThrow(NewerConfigError);
    expect(() => upgradeConfig(newer())).toThrow(
      `configVersion is ${CONFIG_VERSION + 1}, newer than the ${CONFIG_VERSION} this collab-loop knows: use a collab-loop as new as the one that wrote it`,
    );
  });

  it('are one ConfigError naming the file and the field in a file', () => {
    const text = `configVersion: ${CONFIG_VERSION + 1}\n${readFileSync(path.join(CONFIGS, 'demo.yaml'), 'utf8')}`;
    expect(() => parseConfigText(text, 'demo.yaml')).toThrow(ConfigError);
    expect(() => parseConfigText(text, 'demo.yaml')).toThrow(
      new RegExp(`^demo\\.yaml: configVersion: is ${CONFIG_VERSION + 1}, newer than the ${CONFIG_VERSION} `),
    );
  });
});
