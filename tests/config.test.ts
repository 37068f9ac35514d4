// Bad configs get one clear error naming the file and the field path — before anything starts, and from the CLI
// as one line without a stack trace.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, parseConfigText, applyOverridesToConfig } from '../configs/load';
import { PROJECT_ROOT } from '../activities/subprocess/node-script';
import { cli } from './helpers/cli';
import { tempStateDir } from './helpers/config';

const demo = path.join(PROJECT_ROOT, 'configs', 'demo.yaml');
const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
};

describe('config validation', () => {
  it('loads the demo config with absolute paths and defaults filled in', () => {
    const { config, runName } = loadConfig(demo);
    expect(runName).toBe('demo');
    expect(path.isAbsolute(config.recipe.evalTasks)).toBe(true);
    expect(config.stateDir).toBe(path.join(PROJECT_ROOT, 'state'));
    expect(config.recipe.compat).toBe('fixed');
    expect(config.llm.requestTimeoutSeconds).toBe(600);
  });

  it('names the field path of a wrongly typed field', () => {
    const e = errorOf(() => loadConfig(path.join(PROJECT_ROOT, 'tests/fixtures/configs/bad-field.yaml')));
    expect(e).toBeInstanceOf(ConfigError);
    expect(e.field).toBe('recipe.maxTurns');
    expect(e.message).toMatch(/bad-field\.yaml: recipe\.maxTurns: .*number/i);
  });

  it('rejects unknown fields, missing task files, keys written into configs and bad YAML', () => {
    expect(errorOf(() => loadConfig(demo, { overrides: ['recipe.maxTurn=3'] })).message).toMatch(/recipe: unknown field\(s\) "maxTurn"/);
    expect(errorOf(() => loadConfig(demo, { overrides: ['recipe.evalTasks=nope.jsonl'] })).message).toMatch(
      /recipe\.evalTasks: file not found/,
    );
    expect(
      errorOf(() =>
        loadConfig(demo, {
          overrides: [
            'server.kind=external',
            'server.endpoint.baseUrl=http://x/v1',
            'server.endpoint.model=m',
            'server.endpoint.apiKeyEnv=sk-live-123',
          ],
        }),
      ).message,
    ).toMatch(/server\.endpoint\.apiKeyEnv: must be the NAME of an environment variable/);
    expect(errorOf(() => parseConfigText('recipe: [unclosed', 'x.yaml')).message).toMatch(/^x\.yaml: not valid YAML \(line 1\)/);
    expect(errorOf(() => loadConfig(demo, { overrides: ['trainer.method=dpo', 'recipe.beamSize=1'] })).field).toBe('recipe.beamSize');
  });

  it('--set overrides keep their YAML type and retry --set revalidates', () => {
    const { config } = loadConfig(demo, { overrides: ['recipe.maxTurns=3', 'recipe.compat=seed'] });
    expect(config.recipe.maxTurns).toBe(3);
    expect(config.recipe.compat).toBe('seed');
    expect(applyOverridesToConfig(config, ['trainer.maximumAttempts=5']).trainer!.maximumAttempts).toBe(5);
    expect(errorOf(() => applyOverridesToConfig(config, ['trainer.maximumAttempts=-1'])).field).toBe('trainer.maximumAttempts');
  });

  it('the CLI prints one line naming file and field, exits 2, and starts nothing', async () => {
    const dir = tempStateDir();
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'baseCheckpoint: x\nrecipe: {name: coral, dataset: mmlu_pro, evalTasks: t.jsonl}\nserver: {kind: warp-drive}\n');
    // No Temporal server is running at this address: validation must fail before any connection attempt.
    const r = await cli(['start', bad], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(r.exitCode).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^collab-loop: .*bad\.yaml: server\.kind: /);
    expect(r.all).not.toMatch(/\n\s+at /);
  });

  it('a bad task file is reported as such before any server is contacted (start, eval, demo)', async () => {
    const dir = tempStateDir();
    const tasks = path.join(dir, 'tasks.jsonl');
    writeFileSync(tasks, '{"id": "a", "question": "q?", "options": ["x", "y"], "answer": "A"}\n{not json\n');
    for (const cmd of ['start', 'eval', 'demo']) {
      // Nothing listens here: a check that needed the server would report "cannot reach" instead.
      const r = await cli([cmd, demo, '--set', `recipe.evalTasks=${tasks}`, '--set', `stateDir=${dir}`], {
        TEMPORAL_ADDRESS: '127.0.0.1:1',
      });
      expect(r.exitCode, `${cmd}: ${r.all}`).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`collab-loop: ${tasks} line 2: the row is not valid JSON`), lines[0]).toBe(true);
    }
  });
});
