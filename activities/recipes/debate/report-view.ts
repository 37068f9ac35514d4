// How a debate shows in the report's conversation browser: every agent's reply per round with the answer read from
// it, and the vote against the gold answer.
import type { ConversationView } from '../../report/conversation-view';
import type { DebateRecord } from './debate';
import type { DebateTask } from './tasks';

export function debateConversationView(r: DebateRecord, task?: DebateTask): ConversationView {
  const final = r.roundVotes[r.roundVotes.length - 1];
  const rounds = r.roundVotes.length;
  const turns = [];
  for (let k = 0; k < rounds; k++)
    for (const [n, a] of r.agents.entries()) {
      if (r.summaries?.[k]?.[n]) turns.push({ speaker: `summary for agent ${n} · round ${k}`, text: r.summaries[k][n] });
      turns.push({
        speaker: `agent ${n} · round ${k}`,
        text: String(a.messages[2 * k + 1]?.content ?? ''),
        note: `answer: ${a.answers[k] ?? '(none)'}`,
      });
    }
  return {
    id: `${r.taskId} #${r.sampleIndex}`,
    // The vote is the debate's answer: a wrong vote is wrong whether or not the agents split (the split is in the
    // summary's clusters); `disagreed` is CoRal's, where two agents may end without an agreed answer.
    outcome: r.correct ? 'correct' : 'wrong',
    summary: `vote ${final.answer ?? '(no answer)'} · gold ${r.gold} · ${final.clusters.map((c) => `${c.answer}×${c.count}`).join(', ') || 'no answers'}`,
    task: task?.problem,
    turns,
  };
}
