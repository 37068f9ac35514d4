// How a CollabLLM conversation shows in the report's conversation browser: the user and assistant turns, and the
// evaluation's scores (or, for a built conversation, each state's candidates with their rewards).
import type { ConversationView, Outcome } from '../../report/conversation-view';
import { SUCCESS_METRIC } from './config';
import type { CollabBuildRecord, CollabEvalRecord } from './conversation';
import type { CollabTask } from './tasks';

const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));
const fmt = (m: unknown) => (m && typeof m === 'object' && 'score' in m ? (m as { score: number }).score.toFixed(3) : 'missing');

export function collabConversationView(r: CollabEvalRecord | CollabBuildRecord, task?: CollabTask): ConversationView {
  const turns = r.conversation.map((m) => ({ speaker: m.role, text: text(m.content) }));
  if (r.kind === 'build') {
    const scored = r.turns.map((t, i) => `state ${i}: ${t.candidates.map((c) => c.score?.toFixed(3) ?? 'unscored').join(' / ')}`);
    return {
      id: `${r.taskId} #${r.sampleIndex}`,
      outcome: r.ending === 'terminated' ? 'correct' : 'partial',
      summary: `built · ${r.turns.length} states · ${r.ending} · ${scored.join('; ')}`,
      task: task?.prompt,
      turns,
    };
  }
  const success = Object.values(SUCCESS_METRIC)
    .map((m) => r.metrics[m])
    .find(Boolean);
  const s = success && 'score' in success ? success.score : undefined;
  // A success metric the judge could not score is missing (metrics.ts), not half right.
  const outcome: Outcome = s === undefined ? 'unscored' : s >= 0.999 ? 'correct' : s <= 0 ? 'wrong' : 'partial';
  return {
    id: `${r.taskId} #${r.sampleIndex}`,
    outcome,
    summary: `${Object.entries(r.metrics)
      .map(([k, m]) => `${k} ${fmt(m)}`)
      .join(' · ')} · ${r.ending}`,
    task: task?.prompt,
    turns,
  };
}
