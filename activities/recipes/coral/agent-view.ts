// The transcript as one agent sees it (collaborative-reasoner lightning_modules/, the conversation loop): its system prompt, then every turn — its own as
// `assistant`, its partner's as `user` — so the last message is always the partner's. Used to build requests
// during a conversation and, identically, the prompts of SFT / DPO training examples.
import type { ChatMessage } from '../../llm/types';
import { STUDENT_VIEW_PREAMBLE } from './prompts';

export type CoralRole = 'student' | 'teacher';

/** `preamble`: the user message put before a view that would open with the agent's own turn ('' = none). */
export function agentView(
  system: string,
  turns: ReadonlyArray<{ role: CoralRole; content: string }>,
  role: CoralRole,
  preamble: string,
): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  // The student "asked" turn 0, so its view would start with an assistant message. The seed sends that as is;
  // OpenAI-compatible servers (vLLM, transformers serve) require user first, so we prepend a short user message.
  if (preamble && turns[0] && turns[0].role === role) messages.push({ role: 'user', content: preamble });
  for (const t of turns) messages.push({ role: t.role === role ? 'assistant' : 'user', content: t.content });
  return messages;
}

/** The view a record's agent had before turn `k` (records written before the preamble was kept all sent the default). */
export const recordView = (
  r: { system: string; studentPreamble?: string; turns: ReadonlyArray<{ role: CoralRole; content: string }> },
  k: number,
) => agentView(r.system, r.turns.slice(0, k), r.turns[k].role, r.studentPreamble ?? STUDENT_VIEW_PREAMBLE);
