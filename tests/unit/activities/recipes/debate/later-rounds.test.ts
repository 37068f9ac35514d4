// What a later round shows an agent: the other agents' previous answers shuffled and capped at 5, as multiagent-ft's
// original_gen.py does before listing or summarising them (or all in agent order, as ft_gen.py); and requests a
// prompts file can make byte-identical to the seed's, which build them as
//   header + "\n\n <item>" per other agent + trailer naming the problem   (construct_message, summarize_message)
//   "<intro> " + summary + trailer naming the problem                       (construct_message_summary).
// The prompts file is a fixture with our own texts in that shape (tests/fixtures/prompts/debate-seed-keys.yaml).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatCall } from '../../../../../activities/llm/types';
import {
  DEBATE_PROMPTS,
  DEFAULT_DEBATE_PROMPTS,
  listedReplies,
  runDebate,
  type DebateTask,
} from '../../../../../activities/recipes/debate';
import { recipePrompts } from '../../../../../activities/recipes/prompt-file';
import type { Prompts } from '../../../../../activities/recipes/prompt-texts';
import { PROJECT_ROOT } from '../../../../../activities/subprocess/node-script';
import type { DebateRecipeConfig } from '../../../../../activities/recipes/debate/config';
import { debateRuntime } from '../../../../../activities/recipes/debate/runtime';
import { CONFIGS } from '../../../../helpers/config';
import { loadConfig } from '../../../../../configs/load';
import { upgradeConfig } from '../../../../../configs/upgrade';
import { scripted } from '../../../../helpers/debate';

const TASK: DebateTask = { id: 't1', dataset: 'math', problem: 'What is $2+3$?', gold: '5' };
const decoding = { temperature: 1, topP: 0.9, maxTokens: 64 };
type Calls = Array<{ role: string; call: ChatCall }>;
const lastUser = (c: { call: ChatCall }) => c.call.messages.at(-1)?.content as string;

/** A debate of `agents` agents × 2 rounds in which agent i always answers i. */
async function debate(
  agents: number,
  o: { summarize: boolean; others: { shuffle: boolean; max: number }; prompts?: Prompts; seed?: number },
) {
  const calls: Calls = [];
  const script: Record<string, string[]> = { summarizer: [] };
  for (let i = 0; i < agents; i++) {
    script[`generator_${i}`] = [String(i)];
    script[`critic_${i}`] = [String(i)];
  }
  const reply = (a: string) => ` - agent ${a} reasons\n\\boxed{${a}}\n`; // leading and trailing space kept as written
  await runDebate({
    task: TASK,
    prompts: o.prompts ?? DEFAULT_DEBATE_PROMPTS,
    sampleIndex: 0,
    agents,
    rounds: 2,
    summarize: o.summarize,
    others: o.others,
    chats: scripted(script, calls, reply),
    decoding,
    seed: o.seed ?? 7,
    compat: 'fixed',
  });
  const byRole = (role: string) => calls.filter((c) => c.role === role).map(lastUser);
  return { calls, byRole, reply };
}

const listedAgents = (request: string) => listedReplies(request).map((r) => Number(/agent (\d+)/.exec(r)?.[1]));

describe("the other agents a later round shows (original_gen.py's shuffle and cap)", () => {
  it('each agent sees 5 of the 6 others, never itself, in a seeded shuffled order', async () => {
    const a = await debate(7, { summarize: false, others: { shuffle: true, max: 5 } });
    const shown = Array.from({ length: 7 }, (_, i) => listedAgents(a.byRole(`critic_${i}`)[0]));
    for (const [i, s] of shown.entries()) {
      expect(s).toHaveLength(5);
      expect(new Set(s).size).toBe(5);
      expect(s).not.toContain(i);
    }
    const inAgentOrder = (s: number[]) => s.every((x, k) => k === 0 || x > s[k - 1]);
    expect(shown.some((s) => !inAgentOrder(s))).toBe(true);
    // The same seed shows the same; the shuffle is no accident of call timing.
    const again = await debate(7, { summarize: false, others: { shuffle: true, max: 5 } });
    expect(Array.from({ length: 7 }, (_, i) => listedAgents(again.byRole(`critic_${i}`)[0]))).toEqual(shown);
  });

  it('the summariser gets the same 5 (summarize: true); shuffle: false, a larger max: all others in agent order (ft_gen.py)', async () => {
    const s = await debate(7, { summarize: true, others: { shuffle: true, max: 5 } });
    const summarised = s.byRole('summarizer').map(listedAgents);
    expect(summarised).toHaveLength(7);
    for (const [i, list] of summarised.entries()) {
      expect(list).toHaveLength(5);
      expect(list).not.toContain(i);
    }
    const all = await debate(7, { summarize: true, others: { shuffle: false, max: 10 } });
    expect(all.byRole('summarizer').map(listedAgents)).toEqual(
      Array.from({ length: 7 }, (_, i) => [0, 1, 2, 3, 4, 5, 6].filter((j) => j !== i)),
    );
  });
});

describe('a run started before `others` existed', () => {
  it('shows every other agent in agent order, as it did then', async () => {
    // The config such a run recorded: parsed by code without `others` (nor configVersion); its activities get it
    // upgraded (configs/upgrade.ts).
    const { configVersion: _v, ...parsed } = loadConfig(path.join(CONFIGS, 'debate.dry-run.yaml'), {
      overrides: ['recipe.agents=7'],
    }).config;
    const { others: _o, ...recipe } = parsed.recipe as DebateRecipeConfig;
    const old = upgradeConfig({ ...parsed, recipe }).recipe;
    const calls: Calls = [];
    const script = Object.fromEntries(
      Array.from({ length: 7 }, (_, i) => [
        [`generator_${i}`, [String(i)]],
        [`critic_${i}`, [String(i)]],
      ]).flat(),
    );
    const runtime = debateRuntime(old as DebateRecipeConfig, 7, 'trl');
    await runtime.runTask({ split: 'eval', taskIndex: 0, sampleIndex: 0, chats: scripted(script, calls), services: {} });
    const shown = calls
      .filter((c) => c.role === 'critic_3')
      .map((c) => listedReplies(lastUser(c)).map((r) => /boxed\{(\d+)\}/.exec(r)?.[1]));
    expect(shown).toEqual([['0', '1', '2', '4', '5', '6']]);
  });
});

describe("a prompts file of the seed's shape rebuilds the seed's requests byte for byte", () => {
  const prompts = recipePrompts(DEBATE_PROMPTS, {
    name: 'debate',
    prompts: path.join(PROJECT_ROOT, 'tests/fixtures/prompts/debate-seed-keys.yaml'),
  });
  // The fixture's texts, put together as the seed's construct_message / summarize_message /
  // construct_message_summary put theirs.
  const seedList = (header: string, item: (a: string) => string, answers: string[], trailer: string) =>
    header + answers.map((a) => `\n\n ${item(a)}`).join('') + trailer;

  it('listed rounds: the answers appended as written, the problem in the request', async () => {
    const d = await debate(3, { summarize: false, others: { shuffle: false, max: 5 }, prompts });
    expect(d.byRole('generator_0')[0]).toBe(
      `Please work out this problem: ${TASK.problem} List your steps as bullets and put one final answer as \\boxed{answer} last.`,
    );
    const others = (i: number) => [0, 1, 2].filter((j) => j !== i).map((j) => d.reply(String(j)));
    for (let i = 0; i < 3; i++)
      expect(d.byRole(`critic_${i}`)[0]).toBe(
        seedList(
          'Other agents wrote these solutions: ',
          (a) => `Another agent said: ${a}`,
          others(i),
          `\n\n Treat them as hints and give a bullet-by-bullet revision for ${TASK.problem}? Put the answer as \\boxed{answer} last.`,
        ),
      );
  });

  it("summarised rounds: the summariser's request and the agent's, the summary pasted as it came", async () => {
    const d = await debate(3, { summarize: true, others: { shuffle: false, max: 5 }, prompts });
    const others = (i: number) => [0, 1, 2].filter((j) => j !== i).map((j) => d.reply(String(j)));
    expect(d.byRole('summarizer')).toEqual(
      [0, 1, 2].map((i) =>
        seedList(
          'Below are views of several agents: ',
          (a) => `Another agent said: \`\`\`${a}\`\`\``,
          others(i),
          '\n\n Summarise each view and how it reasons.',
        ),
      ),
    );
    const critics = [0, 1, 2].map((i) => d.byRole(`critic_${i}`)[0]);
    const summaries = d.calls.filter((c) => c.role === 'summarizer').map((_, k) => `summary ${k}`);
    expect(new Set(critics)).toEqual(
      new Set(
        summaries.map(
          (s) =>
            `A digest of other agents' solutions: ${s}\n\n Weigh these as hints, solve ${TASK.problem} again and explain. \n Put the answer as \\boxed{answer} last.`,
        ),
      ),
    );
  });
});
