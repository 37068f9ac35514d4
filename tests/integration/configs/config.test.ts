// Bad configs get one clear error naming the file and the field path — before anything starts, and from the CLI
// as one line without a stack trace.
import { describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, parseConfigText, applyOverridesToConfig } from '../../../configs/load';
import { PROJECT_ROOT } from '../../../activities/subprocess/node-script';
import { cli } from '../../helpers/cli';
import { tempStateDir } from '../../helpers/config';

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
    expect(errorOf(() => loadConfig(demo, { overrides: ['recipe.maxTurn=3'] })).message).toMatch(
      /recipe\.maxTurn: unknown field "maxTurn"/,
    );
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
    const collab = path.join(PROJECT_ROOT, 'configs', 'collabllm.dry-run.yaml');
    expect(errorOf(() => loadConfig(collab, { overrides: ['server.structuredOutputs=json'] })).message).toMatch(
      /^--set server\.structuredOutputs=json: server\.structuredOutputs: .*expected one of "parse"\|"json_schema"/,
    );
    expect(loadConfig(collab, { overrides: ['server.structuredOutputs=json_schema'] }).config.server).toMatchObject({
      structuredOutputs: 'json_schema',
    });
    expect(errorOf(() => parseConfigText('recipe: [unclosed', 'x.yaml')).message).toMatch(/^x\.yaml: not valid YAML \(line 1\)/);
    expect(errorOf(() => loadConfig(demo, { overrides: ['trainer.method=dpo', 'recipe.beamSize=1'] })).field).toBe('recipe.beamSize');
  });

  it("model roles: endpoint fields that moved say where to; unknown roles name the recipe's roles; paths resolve", () => {
    const ep = ['kind=external', 'endpoint.baseUrl=http://127.0.0.1:8000/v1', 'endpoint.model=m'];
    // Fields of the single-model era name their new place instead of "unknown field".
    const moved = errorOf(() => loadConfig(demo, { overrides: ['recipe.extractor.baseUrl=http://127.0.0.1:8000/v1'] }));
    expect(moved.field).toBe('recipe.extractor');
    expect(moved.message).toMatch(/recipe\.extractor: moved to the models section: write it as models: \{ extractor: \{ kind: external/);
    const debate = path.join(PROJECT_ROOT, 'configs', 'debate.dry-run.yaml');
    expect(errorOf(() => loadConfig(debate, { overrides: ['recipe.summarizer.model=m'] })).field).toBe('recipe.summarizer');
    const colbench = path.join(PROJECT_ROOT, 'configs', 'colbench-code.dry-run.yaml');
    expect(errorOf(() => loadConfig(colbench, { overrides: ['recipe.human.endpoint.model=m'] })).field).toBe('recipe.human.endpoint');
    const critic = errorOf(() => loadConfig(colbench, { overrides: ['recipe.data.critic={endpoint: {model: m}}'] }));
    expect(critic.field).toBe('recipe.data.critic');
    expect(critic.message).toMatch(/the critic model itself is the models section's role `critic`/);
    // The new place works; a role the recipe does not have is named with the ones it has.
    const { config } = loadConfig(demo, { overrides: ep.map((o) => `models.extractor.${o}`) });
    expect(config.models.extractor).toMatchObject({ kind: 'external', endpoint: { model: 'm' } });
    const unknown = errorOf(() => loadConfig(demo, { overrides: ['models.critic_0.kind=trained'] }));
    expect(unknown.message).toMatch(/models\.critic_0: recipe coral has no role "critic_0" here \(its roles: agent, extractor\)/);
    // A frozen role's checkpoint is relative to the config file, like every path.
    const frozen = loadConfig(debate, {
      overrides: ['recipe.summarize=true', 'models.summarizer.kind=frozen', 'models.summarizer.checkpoint=checkpoints/sim-base'],
    });
    expect(frozen.config.models.summarizer).toEqual({
      kind: 'frozen',
      checkpoint: path.join(PROJECT_ROOT, 'configs/checkpoints/sim-base'),
    });
  });

  it('online RL (trainer.method grpo): a recipe that serves it, verl, and every untrained role external', () => {
    const grpo = path.join(PROJECT_ROOT, 'configs', 'collabllm-verl-grpo.yaml');
    const { config } = loadConfig(grpo, { overrides: ['trainer.grpo.recipePath=../verl-src'] });
    expect(config.trainer).toMatchObject({ kind: 'verl', method: 'grpo', grpo: { rolloutN: 8, numRepeatRollouts: 3 } });
    expect(config.trainer?.kind === 'verl' && config.trainer.grpo.recipePath).toBe(path.join(PROJECT_ROOT, 'verl-src'));
    const frozen = errorOf(() => loadConfig(grpo, { overrides: ['models.user={kind: frozen}'] }));
    expect(frozen.message).toMatch(/^--set models\.user=\{kind: frozen\}: models\.user: must be kind: external with trainer\.method grpo/);
    expect(errorOf(() => loadConfig(grpo, { overrides: ['trainer={kind: trl, method: grpo}'] })).message).toMatch(
      /trainer\.method: trl trains sft, dpo and online_dpo only, not grpo/,
    );
    const coral = errorOf(() => loadConfig(demo, { overrides: ['trainer.kind=verl', 'trainer.method=grpo'] }));
    expect(coral.message).toMatch(/trainer\.method: grpo needs a recipe with an online RL reward; coral has none/);
  });

  it('online RL with verl PPO or TRL online DPO: the same checks, each method on the trainer kinds that run it', () => {
    const grpo = path.join(PROJECT_ROOT, 'configs', 'collabllm-verl-grpo.yaml');
    const ppo = loadConfig(grpo, { overrides: ['trainer.method=ppo', 'trainer.ppo.criticWarmup=2'] }).config.trainer;
    expect(ppo).toMatchObject({ kind: 'verl', method: 'ppo', ppo: { rolloutN: 1, criticLearningRate: 1e-5, criticWarmup: 2 } });
    const online = loadConfig(grpo, { overrides: ['trainer={kind: trl, method: online_dpo, onlineDpo: {futures: 2}}'] }).config.trainer;
    expect(online).toMatchObject({ kind: 'trl', method: 'online_dpo', onlineDpo: { futures: 2, maxUserTurns: 2, maxAssistantTurns: 3 } });
    expect(errorOf(() => loadConfig(grpo, { overrides: ['trainer={kind: trl, method: ppo}'] })).message).toMatch(
      /trainer\.method: trl trains sft, dpo and online_dpo only, not ppo/,
    );
    expect(errorOf(() => loadConfig(grpo, { overrides: ['trainer.method=online_dpo'] })).message).toMatch(
      /trainer\.method: verl trains sft, grpo and ppo only, not online_dpo/,
    );
    const frozen = errorOf(() =>
      loadConfig(grpo, { overrides: ['trainer={kind: trl, method: online_dpo}', 'models.user={kind: frozen}'] }),
    );
    expect(frozen.message).toMatch(/models\.user: must be kind: external with trainer\.method online_dpo/);
    const coral = errorOf(() => loadConfig(demo, { overrides: ['trainer.kind=trl', 'trainer.method=online_dpo'] }));
    expect(coral.message).toMatch(/trainer\.method: online_dpo needs a recipe with an online RL reward; coral has none/);
  });

  it("SWEET-RL's critic: learned (trained by the loop, DPO) by default, or a judge of any kind", () => {
    const colbench = path.join(PROJECT_ROOT, 'configs', 'colbench-code.dry-run.yaml');
    const { config } = loadConfig(colbench);
    expect(config.recipe.name === 'colbench-code' && config.recipe.data.critic).toBe('learned');
    const sft = errorOf(() => loadConfig(colbench, { overrides: ['trainer.method=sft'] }));
    expect(sft.message).toMatch(/recipe\.data\.critic: learned trains the critic with DPO .* use critic: judge, or trainer\.method: dpo/);
    const external = ['models.critic={kind: external, endpoint: {baseUrl: "http://127.0.0.1:9/v1", model: m}}'];
    expect(errorOf(() => loadConfig(colbench, { overrides: external })).message).toMatch(
      /models\.critic: must be kind: trained: the recipe trains critic each iteration .* use recipe\.data\.critic: judge/,
    );
    const untrained = path.join(PROJECT_ROOT, 'tests/fixtures/prompts/colbench-code-seed.yaml'); // no trainer section
    expect(errorOf(() => loadConfig(untrained, { overrides: ['recipe.data.critic=learned'] })).message).toMatch(
      /trainer: is required to build training data with a critic the loop trains first .* use recipe\.data\.critic: judge/,
    );
    const judge = loadConfig(colbench, { overrides: [...external, 'recipe.data.critic=judge', 'trainer.method=sft'] }).config;
    expect(judge.models.critic?.kind).toBe('external');
    expect(errorOf(() => loadConfig(colbench, { overrides: ['recipe.data.critic=oracle'] })).message).toMatch(
      /recipe\.data\.critic: must be learned .* or judge/,
    );
  });

  it('TOA: every policy sized for FLOPs, roles and ranges checked, reward endpoints by api', () => {
    const toa = path.join(PROJECT_ROOT, 'configs', 'toa.dry-run.yaml');
    const { config } = loadConfig(toa);
    expect(Object.keys(config.models).sort()).toEqual(['policy_0', 'policy_1', 'policy_2', 'policy_3', 'reward']);
    const unsized = errorOf(() => loadConfig(toa, { overrides: ['recipe.flops={policy_0: {params: 7.0e9}}'] }));
    expect(unsized.message).toMatch(
      /^--set recipe\.flops=\{policy_0: \{params: 7\.0e9\}\}: recipe\.flops\.policy_1: is missing: FLOPs per call need each policy's parameter count/,
    );
    expect(errorOf(() => loadConfig(toa, { overrides: ['recipe.flops.policy_9={params: 1}'] })).field).toBe('recipe.flops.policy_9');
    expect(errorOf(() => loadConfig(toa, { overrides: ['recipe.singlePolicy=4'] })).field).toBe('recipe.singlePolicy');
    // A reward model's scoring API (vLLM pooling, a POST-JSON scorer) is a reward endpoint, never the served policy.
    const score = ['kind=external', 'endpoint.baseUrl=http://127.0.0.1:8000', 'endpoint.model=kiwi', 'endpoint.api=score'];
    const scored = loadConfig(toa, { overrides: score.map((o) => `models.reward.${o}`) });
    expect(scored.config.models.reward).toMatchObject({ kind: 'external', endpoint: { api: 'score' } });
    const server = errorOf(() => loadConfig(toa, { overrides: score.map((o) => `server.${o}`) }));
    expect(server.message).toMatch(/server\.endpoint\.api: /);
  });

  it('ColBench html similarity: weight-free by default; clip names a CLIP checkpoint directory, checked at load', () => {
    const html = path.join(PROJECT_ROOT, 'configs', 'colbench-html.dry-run.yaml');
    const similarityOf = (overrides: string[]) => {
      const { recipe } = loadConfig(html, { overrides }).config;
      return recipe.name === 'colbench-html' ? recipe.similarity : undefined;
    };
    expect(similarityOf([])).toEqual({ kind: 'weight-free' });
    // A directory shaped as save_pretrained writes a CLIP (the loader reads no weights: an empty file will do).
    const clip = path.join(tempStateDir(), 'clip');
    mkdirSync(clip);
    writeFileSync(path.join(clip, 'config.json'), JSON.stringify({ model_type: 'clip' }));
    writeFileSync(path.join(clip, 'preprocessor_config.json'), '{}');
    writeFileSync(path.join(clip, 'model.safetensors'), '');
    expect(similarityOf([`recipe.similarity={kind: clip, model: ${clip}}`])).toEqual({ kind: 'clip', model: clip });
    const problem = (overrides: string[]) => {
      const e = errorOf(() => loadConfig(html, { overrides }));
      expect(e).toBeInstanceOf(ConfigError);
      return e;
    };
    const noModel = problem(['recipe.similarity.kind=clip']);
    expect(noModel.message).toMatch(/colbench-html\.dry-run\.yaml: recipe\.similarity\.model: must name a local CLIP checkpoint directory/);
    expect(problem(['recipe.similarity.kind=siglip']).message).toMatch(
      /recipe\.similarity\.kind: must be \{kind: weight-free\} or \{kind: clip, model: <CLIP checkpoint directory>\}/,
    );
    expect(problem([`recipe.similarity={kind: weight-free, model: ${clip}}`]).message).toMatch(
      /recipe\.similarity\.model: unknown field "model"/,
    );
    // Relative to the config file (configs/), like every path; then it must hold a CLIP.
    const notClip = problem(['recipe.similarity={kind: clip, model: checkpoints/sim-base}']);
    expect(notClip.field).toBe('recipe.similarity.model');
    expect(notClip.message).toContain(`${path.join(PROJECT_ROOT, 'configs/checkpoints/sim-base')} has no config.json`);
    expect(problem(['recipe.similarity={kind: clip, model: no-such-dir}']).message).toMatch(
      /recipe\.similarity\.model: .*configs\/no-such-dir is not a directory \(a CLIP checkpoint directory saved with save_pretrained/,
    );
    writeFileSync(path.join(clip, 'config.json'), JSON.stringify({ model_type: 'llama' }));
    expect(problem([`recipe.similarity={kind: clip, model: ${clip}}`]).message).toMatch(/config\.json has model_type "llama", not "clip"/);
    const noWeights = path.join(tempStateDir(), 'w');
    mkdirSync(noWeights);
    writeFileSync(path.join(noWeights, 'config.json'), JSON.stringify({ model_type: 'clip' }));
    writeFileSync(path.join(noWeights, 'preprocessor_config.json'), '{}');
    expect(problem([`recipe.similarity={kind: clip, model: ${noWeights}}`]).message).toMatch(/has no weights \(model\.safetensors or/);
    // The code recipe compares no pages.
    const code = path.join(PROJECT_ROOT, 'configs', 'colbench-code.dry-run.yaml');
    expect(errorOf(() => loadConfig(code, { overrides: ['recipe.similarity.kind=clip'] })).message).toMatch(
      /recipe\.similarity: unknown field "similarity"/,
    );
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

// A user meets these at `collab-loop start`: one line naming where to fix it, before the run is started (nothing
// listens at TEMPORAL_ADDRESS 127.0.0.1:1, so a check that came after connecting would say "cannot reach" instead).
describe('bad input names where to fix it', () => {
  const noServer = { TEMPORAL_ADDRESS: '127.0.0.1:1', COLLAB_LOOP_SERVER_RETRY_SECONDS: '0' };
  const oneLine = async (args: string[]) => {
    const r = await cli(args, noServer);
    expect(r.exitCode, r.all).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.all).toHaveLength(1);
    return lines[0];
  };

  it('start checks every checkpoint before starting and names the field and the resolved path', async () => {
    const dir = tempStateDir();
    const file = path.join(dir, 'missing-base.yaml');
    const configs = path.join(PROJECT_ROOT, 'configs');
    const yaml = readFileSync(demo, 'utf8').replace(/^baseCheckpoint: .*$/m, 'baseCheckpoint: no-such-model');
    writeFileSync(file, yaml.replaceAll(': tasks/', `: ${configs}/tasks/`));
    expect(await oneLine(['start', file, '--set', `stateDir=${dir}`])).toBe(
      `collab-loop: ${file}: baseCheckpoint: checkpoint directory not found: ${path.join(dir, 'no-such-model')}`,
    );
    // A role's own checkpoint too; a checkpoint in the run's store (s3://) is fetched by the stage, not checked here.
    const debate = path.join(PROJECT_ROOT, 'configs', 'debate.dry-run.yaml');
    const frozen = ['recipe.summarize=true', 'models.summarizer={kind: frozen, checkpoint: checkpoints/gone}'];
    expect(await oneLine(['start', debate, ...frozen.flatMap((o) => ['--set', o])])).toBe(
      `collab-loop: --set ${frozen[1]}: models.summarizer.checkpoint: checkpoint directory not found: ${path.join(PROJECT_ROOT, 'configs/checkpoints/gone')}`,
    );
    expect(await oneLine(['start', demo, '--set', 'baseCheckpoint=s3://bucket/checkpoints/base'])).toMatch(
      /cannot reach the Temporal server/,
    );
    // An evaluation against external endpoints reads no checkpoint (a template's /models/… is a GPU host's).
    const external = path.join(PROJECT_ROOT, 'configs', 'coral.external.yaml');
    expect(await oneLine(['start', external])).toMatch(/coral\.external\.yaml: baseCheckpoint: checkpoint directory not found: \/models\//);
    expect(await oneLine(['eval', external])).toMatch(/cannot reach the Temporal server/);
  });

  it('a --set problem names the --set, not the YAML file', async () => {
    expect(await oneLine(['start', demo, '--set', 'recipe.maxTurns=many'])).toBe(
      'collab-loop: --set recipe.maxTurns=many: recipe.maxTurns: Invalid input: expected number, received string',
    );
    expect(await oneLine(['start', demo, '--set', 'recipe.evalTasks=nope.jsonl'])).toBe(
      `collab-loop: --set recipe.evalTasks=nope.jsonl: recipe.evalTasks: file not found: ${path.join(PROJECT_ROOT, 'configs/nope.jsonl')}`,
    );
    // The file's own mistakes stay the file's, whatever else is set.
    const dir = tempStateDir();
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, readFileSync(demo, 'utf8').replace(/^iterations: .*$/m, 'iterations: two'));
    expect(await oneLine(['start', bad, '--set', 'recipe.maxTurns=3'])).toMatch(new RegExp(`^collab-loop: ${bad}: iterations: `));
  });

  it('an unknown field suggests the nearest known one', async () => {
    expect(await oneLine(['start', demo, '--set', 'recipe.maxTurn=3'])).toBe(
      'collab-loop: --set recipe.maxTurn=3: recipe.maxTurn: unknown field "maxTurn" (did you mean "maxTurns"?)',
    );
    const dir = tempStateDir();
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, `${readFileSync(demo, 'utf8')}\ngeneraton:\n  shardSize: 4\n`);
    expect(await oneLine(['start', bad])).toBe(`collab-loop: ${bad}: generaton: unknown field "generaton" (did you mean "generation"?)`);
    // Nothing near: no guess.
    expect(await oneLine(['start', demo, '--set', 'recipe.colour=red'])).toMatch(/recipe\.colour: unknown field "colour"$/);
  });

  it('a YAML syntax error points at the line to fix', async () => {
    const dir = tempStateDir();
    const bad = path.join(dir, 'bad.yaml');
    // Line 4 opens a list it never closes; the parser notices on line 5.
    writeFileSync(bad, 'name: x\nbaseCheckpoint: ../models/tiny-llama\nrecipe:\n  evalTasks: [a.jsonl\n  name: coral\n');
    expect(await oneLine(['start', bad])).toBe(
      `collab-loop: ${bad}: not valid YAML (line 4): Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
    writeFileSync(bad, 'name: x\nseed: "7\niterations: 1\n');
    expect(await oneLine(['start', bad])).toMatch(/bad\.yaml: not valid YAML \(line 2\): Missing closing "quote$/);
    writeFileSync(bad, 'name: x\nrecipe:\n  name: coral\n name: y\n');
    expect(await oneLine(['start', bad])).toMatch(/bad\.yaml: not valid YAML \(line 4\): All mapping items must start at the same column$/);
  });
});
