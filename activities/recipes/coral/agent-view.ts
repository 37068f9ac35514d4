// The transcript as one agent sees it (collaborative-reasoner lightning_modules/, the conversation loop): its system prompt, then every turn — its own as
// `assistant`, its partner's as `user` — so the last message is always the partner's. Used to build requests
// during a conversation and, identically, the prompts of SFT / DPO training examples.
import type { ChatMessage } from '../../llm/types';
import { STUDENT_VIEW_PREAMBLE } from './prompts';

export type CoralRole = 'student' | 'teacher';

export function agentView(system: string, turns: ReadonlyArray<{ role: CoralRole; content: string }>, role: CoralRole): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  // The student "asked" turn 0, so its view would start with an assistant message. The seed sends that as is;
  // OpenAI-compatible servers (vLLM, transformers serve) require user first, so we prepend a short user message.
  if (turns[0] && turns[0].role === role) messages.push({ role: 'user', content: STUDENT_VIEW_PREAMBLE });
  for (const t of turns) messages.push({ role: t.role === role ? 'assistant' : 'user', content: t.content });
  return messages;
}
