// A `Chat` backed by a recipe's SIMULATED policy (stand-in for a model server, which needs a GPU and weights),
// recording every call it receives: the recipes' unit tests play their protocols against it.
import type { Chat, ChatCall } from '../../activities/llm/types';
import type { SimulatedReply, SimulatedRequest } from '../../activities/recipes/shared/simulated-policy';

export type RecordingChat = Chat & { calls: ChatCall[] };

export function simulatedChat(policy: (req: SimulatedRequest) => SimulatedReply, model = 'sim-model'): RecordingChat {
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

/** A CollabLLM loop's four roles, each its own recording Chat on the same simulated policy. */
export const simulatedCollabChats = (policy: (req: SimulatedRequest) => SimulatedReply) => ({
  assistant: simulatedChat(policy),
  user: simulatedChat(policy),
  judge: simulatedChat(policy),
  extractor: simulatedChat(policy),
});
