// `recipe.prompts`: a file of prompt texts by key replaces the project's own, in every recipe. A bad file is one
// error naming the file and the key when the config loads — from the CLI one line, exit 2, nothing started.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyOverridesToConfig, ConfigError, loadConfig } from '../../../../configs/load';
import type { Chat, ChatCall } from '../../../../activities/llm/types';
import { RECIPES } from '../../../../activities/recipes/registry';
import { recipeRuntime } from '../../../../activities/recipes/runtime';
import { defaultTexts, placeholdersIn, promptsOf, templateProblem } from '../../../../activities/recipes/prompt-texts';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { cli } from '../../../helpers/cli';

const CONFIGS = path.join(PROJECT_ROOT, 'configs');
const CORAL = path.join(PROJECT_ROOT, 'tests/fixtures/prompts/coral-seed.yaml');
const dir = mkdtempSync(path.join(os.tmpdir(), 'prompt-files-'));
let files = 0;
/** A prompts file with this text (YAML unless the name says .json). */
function promptsFile(text: string, ext = 'yaml'): string {
  const file = path.join(dir, `prompts-${files++}.${ext}`);
  writeFileSync(file, text);
  return file;
}
const errorOf = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
};
const coralWith = (file: string) => loadConfig(CORAL, { overrides: [`recipe.prompts=${file}`] });

/** An in-process Chat answering `reply(call)`, recording each call. */
function recording(reply: (call: ChatCall) => string): Chat & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    const texts = Array(call.n ?? 1).fill(reply(call));
    return { texts, finishReasons: texts.map(() => 'stop'), usage: { promptTokens: 1, completionTokens: 1 }, cached: false };
  };
  return Object.assign(chat, { calls });
}

describe('every recipe declares its prompt keys', () => {
  it.each(RECIPES.map((r) => [r.name, r] as const))('%s: each default text is a valid template of its own key', (_name, recipe) => {
    for (const [key, spec] of Object.entries(recipe.prompts)) {
      expect(spec.about, key).not.toBe('');
      for (const r of spec.required ?? []) expect(Object.keys(spec.placeholders ?? {}), `${key}: required {${r}}`).toContain(r);
      for (const text of [spec.text, ...(spec.seedText ? [spec.seedText] : [])]) expect(templateProblem(text, spec), key).toBeUndefined();
    }
    // Every text renders with every declared placeholder given (the defaults of both modes).
    for (const compat of ['fixed', 'seed'] as const) {
      const p = promptsOf(recipe.prompts, defaultTexts(recipe.prompts, compat));
      for (const [key, spec] of Object.entries(recipe.prompts)) {
        const values = Object.fromEntries(Object.keys(spec.placeholders ?? {}).map((n) => [n, `<${n}>`]));
        const out = p.render(key, values);
        for (const n of placeholdersIn(spec.text)) expect(out, key).toContain(`<${n}>`);
      }
    }
  });
});

describe('a prompts file', () => {
  it('resolves against the config file, and its texts replace the defaults key by key', async () => {
    const { config } = loadConfig(CORAL);
    expect(config.recipe.prompts).toBe(path.join(PROJECT_ROOT, 'tests/fixtures/prompts/coral-seed-keys.yaml'));
    const [probe] = (await recipeRuntime(config)).probePrompts(1);
    expect(probe[0].content).toMatch(/^Two of you are solving tricky multiple-choice reasoning questions together\./);
    // A key the file leaves out keeps the project's text.
    const other = coralWith(promptsFile('opening.mmlu_pro: "Help: {question}\\n{options}"\n'));
    expect((await recipeRuntime(other.config)).probePrompts(1)[0][0].content).toMatch(/^You are one of two collaborators/);
    expect((await recipeRuntime(other.config)).probePrompts(1)[0][1].content).toMatch(/^Help: /);
  });

  it('may be JSON; {{ and }} are literal braces', async () => {
    const file = promptsFile(JSON.stringify({ 'task_specific_inst.mmlu_pro': 'End with \\boxed{{X}} where {{X}} is a letter.' }), 'json');
    const [probe] = (await recipeRuntime(coralWith(file).config)).probePrompts(1);
    expect(probe[0].content).toMatch(/End with \\boxed\{X\} where \{X\} is a letter\.$/);
  });

  it.each([
    [
      'an unknown key',
      'sytem.assistant_sbs_short: hi\n',
      'sytem.assistant_sbs_short',
      /unknown prompt key; recipe coral has system\.assistant_sbs_short, /,
    ],
    [
      'an unknown placeholder',
      'opening.mmlu_pro: "{questoin} {options}"\n',
      'opening.mmlu_pro',
      /unknown placeholder \{questoin\}; this text may use \{question\}, \{options\} \(write \{\{ and \}\} for a literal brace\)/,
    ],
    [
      'a placeholder in a text that takes none',
      'task_name.math: "\\\\frac{a}{b}"\n',
      'task_name.math',
      /unknown placeholder \{a\}; this text takes no placeholders/,
    ],
    [
      'a missing required placeholder',
      'opening.mmlu_pro: "Help me with {question}"\n',
      'opening.mmlu_pro',
      /must use the placeholder \{options\} \(the options/,
    ],
    [
      'a Jinja placeholder',
      'system.simple_cot: "Answer {{ task_name }}."\n',
      'system.simple_cot',
      /\{\{ task_name \}\} is a Jinja placeholder; write \{task_name\}/,
    ],
    ['a list', 'extractor.system: [a, b]\n', 'extractor.system', /must be a text, not a list/],
    ['a nested mapping', 'extractor:\n  system: hi\n', 'extractor', /must be a text, not a mapping \(write nested keys flat, with dots\)/],
  ])('with %s is one error naming the file and the key', (_what, text, key, detail) => {
    const file = promptsFile(text);
    const e = errorOf(() => coralWith(file));
    expect(e.file).toBe(file);
    expect(e.field).toBe(key);
    expect(e.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${key.replace('.', '\\.')}: ${detail.source}`));
  });

  it('that is not a mapping, not YAML, or missing is one error naming the file', () => {
    const list = promptsFile('- a\n- b\n');
    expect(errorOf(() => coralWith(list)).message).toBe(
      `${list}: must be a mapping of prompt keys to texts, e.g. \`agent.system: "You are …"\``,
    );
    const broken = promptsFile('opening.mmlu_pro: "unclosed\n');
    expect(errorOf(() => coralWith(broken)).message).toMatch(new RegExp(`^${broken}: not valid YAML or JSON \\(line \\d+\\)`));
    const missing = errorOf(() => coralWith('no-such-prompts.yaml'));
    expect(missing.field).toBe('recipe.prompts');
    expect(missing.message).toContain(`file not found: ${path.join(path.dirname(CORAL), 'no-such-prompts.yaml')}`);
  });

  it('cannot go to the dry-run simulator, which knows only the project’s own texts', () => {
    const file = promptsFile('extractor.system: Read the reply.\n');
    const e = errorOf(() => loadConfig(path.join(CONFIGS, 'coral.dry-run.yaml'), { overrides: [`recipe.prompts=${file}`] }));
    expect(e.field).toBe('recipe.prompts');
    expect(e.message).toMatch(/server\.kind: simulator plays a dry run with the project's own prompt texts only/);
  });

  it('can be changed by retry --set, revalidated the same way', () => {
    const { config } = loadConfig(CORAL);
    const good = promptsFile('extractor.system: Read the reply.\n');
    expect(applyOverridesToConfig(config, [`recipe.prompts=${good}`]).recipe.prompts).toBe(good);
    const bad = promptsFile('extractor.system: "{response}"\n');
    const e = errorOf(() => applyOverridesToConfig(config, [`recipe.prompts=${bad}`]));
    expect([e.file, e.field]).toEqual([bad, 'extractor.system']);
  });

  it('the CLI prints one line naming the file and the key, exits 2, and starts nothing', async () => {
    const bad = promptsFile('opening.mmlu_pro: "{question}"\n');
    const r = await cli(['eval', CORAL, '--set', `recipe.prompts=${bad}`], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `collab-loop: ${bad}: opening.mmlu_pro: must use the placeholder {options} (the options, one per line: "(A) …")`,
    ]);
  });
});

describe('debate, CollabLLM and TOA take a prompts file too', () => {
  it('debate: every agent of round 0 gets the file’s request', async () => {
    const file = promptsFile(
      'first_round: "Work this out:\\n{problem}\\nFinish with {answer_format}."\nanswer_format.math: "\\\\boxed{{value}}"\n',
    );
    const { config } = loadConfig(path.join(CONFIGS, 'debate.external.yaml'), { overrides: [`recipe.prompts=${file}`] });
    const runtime = await recipeRuntime(config);
    const generators = recording(() => 'The answer is \\boxed{1}.');
    const chats: Record<string, Chat> = { summarizer: recording(() => 'They agree.') };
    for (const n of [0, 1, 2]) Object.assign(chats, { [`generator_${n}`]: generators, [`critic_${n}`]: recording(() => '\\boxed{1}') });
    await runtime.runTask({ split: 'eval', taskIndex: 0, sampleIndex: 0, chats, services: {} });
    const problem = (runtime.probePrompts(1)[0][0].content as string).split('\n')[1];
    expect(generators.calls.map((c) => c.messages)).toEqual(
      Array(3).fill([{ role: 'user', content: `Work this out:\n${problem}\nFinish with \\boxed{value}.` }]),
    );
  });

  it('CollabLLM: the user simulator gets the file’s system prompt and request', async () => {
    const file = promptsFile(
      'user.system: "You are a busy person; end with [[TERMINATE CHAT]] when done."\nuser.request: "Goal: {hidden_goal}\\nSo far: {conversation}"\nuser.no_conversation: "(silence)"\n',
    );
    const { config } = loadConfig(path.join(CONFIGS, 'collabllm.external.yaml'), { overrides: [`recipe.prompts=${file}`] });
    const user = recording(() => '{"current_answer": "", "thought": "", "response": "never mind [[TERMINATE CHAT]]"}');
    const none = recording(() => {
      throw new Error('no other role is asked');
    });
    await (await recipeRuntime(config)).runTask({
      split: 'eval',
      taskIndex: 0,
      sampleIndex: 0,
      chats: { assistant: none, user, judge: none, extractor: none },
      services: {},
    });
    expect(user.calls).toHaveLength(1);
    expect(user.calls[0].messages[0]).toEqual({ role: 'system', content: 'You are a busy person; end with [[TERMINATE CHAT]] when done.' });
    expect(user.calls[0].messages[1].content).toMatch(/^Goal: [\s\S]+\nSo far: \(silence\)$/);
  });

  it('TOA: a translation prompt is the file’s', async () => {
    const file = promptsFile('generate.translation: "Into English, please ({source_name}):\\n{source}"\n');
    const { config } = loadConfig(path.join(CONFIGS, 'toa.external.yaml'), {
      overrides: [
        `recipe.prompts=${file}`,
        'recipe.task=translation',
        'recipe.evalTasks=tasks/toa/translation.jsonl',
        'recipe.trainTasks=tasks/toa/translation.jsonl',
      ],
    });
    const [probe] = (await recipeRuntime(config)).probePrompts(1);
    expect(probe).toHaveLength(1);
    expect(probe[0].content).toMatch(/^Into English, please \(\w+ text\):\n\S/);
  });
});
