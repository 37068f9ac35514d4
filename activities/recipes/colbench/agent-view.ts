// The dialogue as the agent sees it (sweet_rl environments, HumanInteractionEnv): its system prompt, the problem description as the first user
// message, then its own visible messages as `assistant` and the human's replies as `user`. Used for requests during
// an episode and, identically, for the prompts of SWEET-RL states and training rows. The hidden reference is never
// part of it: observations must be the same at training and test time.
import type { ChatMessage } from '../../llm/types';
import type { DialogueTurn } from './prompts';

export function agentMessages(system: string, problem: string, dialogue: readonly DialogueTurn[]): ChatMessage[] {
  return [
    { role: 'system', content: system },
    { role: 'user', content: problem },
    ...dialogue.map((t): ChatMessage => ({ role: t.role === 'agent' ? 'assistant' : 'user', content: t.content })),
  ];
}
