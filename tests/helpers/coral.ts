// Shared test helpers: task fixtures, a fake `Chat` backed by the SIMULATED policy (stand-in for a model server,
// which needs a GPU and weights), and a scripted `Chat` for exact protocol checks.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Chat, ChatCall } from '../../activities/llm/types';
import { loadCoralTasks, type CoralDataset, type CoralTask } from '../../activities/recipes/coral';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'tests/fixtures/coral');
export const DEMO_TASKS = path.join(ROOT, 'configs/tasks/coral-demo');

export function fixtureTasks(dataset: CoralDataset): CoralTask[] {
  const file =
    dataset === 'mmlu_pro' || dataset === 'math' ? path.join(DEMO_TASKS, `${dataset}.jsonl`) : path.join(FIXTURES, `${dataset}.jsonl`);
  return loadCoralTasks(file, dataset);
}

export { simulatedChat } from './simulated-chat';

/** A Chat that replies from a list (one reply per call, n copies), recording calls. */
export function scriptedChat(
  replies: Array<string | string[]>,
  usage = { promptTokens: 10, completionTokens: 5 },
): Chat & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    const next = replies[calls.length - 1];
    if (next === undefined) throw new Error(`scriptedChat: no reply scripted for call ${calls.length}`);
    const texts = Array.isArray(next) ? next : [next];
    return { texts, finishReasons: texts.map(() => 'stop'), usage, cached: false };
  };
  return Object.assign(chat, { calls });
}
