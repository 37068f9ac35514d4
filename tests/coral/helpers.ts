// Shared test helpers: task fixtures, a fake `Chat` backed by the SIMULATED policy (stand-in for a model server,
// which needs a GPU and weights), and a scripted `Chat` for exact protocol checks.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Chat, ChatCall } from '../../activities/llm/types';
import { loadCoralTasks, type CoralDataset, type CoralSimulatedPolicy, type CoralTask } from '../../activities/recipes/coral';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(ROOT, 'tests/fixtures/coral');
export const DEMO_TASKS = path.join(ROOT, 'configs/tasks/coral-demo');

export function fixtureTasks(dataset: CoralDataset): CoralTask[] {
  const file =
    dataset === 'mmlu_pro' || dataset === 'math' ? path.join(DEMO_TASKS, `${dataset}.jsonl`) : path.join(FIXTURES, `${dataset}.jsonl`);
  return loadCoralTasks(file, dataset);
}

/** A Chat that answers with the simulated policy, recording every call it receives. */
export function simulatedChat(policy: CoralSimulatedPolicy, model = 'sim-model'): Chat & { calls: ChatCall[] } {
  const calls: ChatCall[] = [];
  const chat = async (call: ChatCall) => {
    calls.push(call);
    const r = policy({
      model,
      messages: call.messages,
      n: call.n ?? 1,
      seed: call.decoding.seed,
      temperature: call.decoding.temperature,
      maxTokens: call.decoding.maxTokens,
    });
    return {
      texts: r.texts,
      finishReasons: r.texts.map(() => 'stop'),
      usage: { promptTokens: r.promptTokens, completionTokens: r.completionTokens.reduce((a, b) => a + b, 0) },
      cached: false,
    };
  };
  return Object.assign(chat, { calls });
}

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
