// A CoRal conversation as the report's browser shows it: the student's question, both agents' turns with the
// belief read from each, the final answer against the gold one, and whether the agents agreed.
import type { ConversationView } from '../../report/conversation-view';
import type { CoralConversation } from './conversation';
import type { CoralTask } from './tasks';

export function coralConversationView(c: CoralConversation, task: CoralTask | undefined): ConversationView {
  const turns = c.turns.map((t) => ({
    speaker: t.role,
    text: t.content,
    ...(t.extracted !== undefined
      ? { note: `belief: ${t.extracted || '(none)'}${t.correct === undefined ? '' : t.correct ? ' ✓' : ' ✗'}` }
      : {}),
  }));
  const generated = c.turns.length - 1; // turn 0 is the question
  const how = c.mode === 'cot' ? 'one agent' : c.agreed ? `agreed after ${generated} turn(s)` : `no agreement in ${generated} turn(s)`;
  return {
    id: `${c.taskId} #${c.sampleIndex}`,
    outcome: !c.agreed && c.mode === 'coral' ? 'disagreed' : c.correct ? 'correct' : 'wrong',
    summary: `answer ${c.finalAnswer ?? '(none)'}${task ? ` · gold ${task.gold}` : ''} · ${how}`,
    turns,
  };
}
