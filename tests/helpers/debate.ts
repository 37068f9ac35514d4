// The debate society the tests run: 3 agents × 2 rounds on the MATH fixture, hence six trained roles.
import path from 'node:path';
import type { Chat, ChatCall } from '../../activities/llm/types';
import { CONFIGS } from './config';

export const DEBATE_ROLES = ['generator_0', 'generator_1', 'generator_2', 'critic_0', 'critic_1', 'critic_2'];

const TASKS = path.join(CONFIGS, 'tasks/debate/math.jsonl');

/** The `recipe:` section: 8 problems, 2 training debates each. */
export const debateTestRecipe = () => ({
  name: 'debate',
  dataset: 'math',
  evalTasks: TASKS,
  trainTasks: TASKS,
  agents: 3,
  rounds: 2,
  trainSamples: 2,
  limit: 8,
});

/** Scripted agents: each role answers from a table (role → answer per call, written by `reply`; the summariser
 *  writes "summary <i>"), and every call is recorded. */
export function scripted(
  script: Record<string, string[]>,
  calls: Array<{ role: string; call: ChatCall }>,
  reply = (answer: string) => `- step\n\\boxed{${answer}}`,
): Record<string, Chat> {
  const used: Record<string, number> = {};
  return Object.fromEntries(
    Object.keys(script).map((role) => [
      role,
      (async (call: ChatCall) => {
        calls.push({ role, call });
        const i = (used[role] = (used[role] ?? -1) + 1);
        const text = role === 'summarizer' ? `summary ${i}` : reply(script[role][i]);
        return { texts: [text], finishReasons: ['stop'], usage: { promptTokens: 10, completionTokens: 5 }, cached: false };
      }) as Chat,
    ]),
  );
}
