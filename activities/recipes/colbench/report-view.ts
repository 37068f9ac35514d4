// A ColBench episode as the report's browser shows it: the dialogue between agent and simulated human, and what the
// scorer saw — for code, each hidden test the answer failed with its call; for html, the agent's last page beside
// the reference page.
import type { ConversationView, Outcome } from '../../report/conversation-view';
import type { ColbenchTrajectory } from './episode';
import type { CodeScore, HtmlScore } from './scoring';
import type { ColbenchTask } from './tasks';

/** A render at least this similar to the reference counts as the same page (antialiasing aside). */
const SAME_PAGE = 0.99;

/** Tests the reference failed on are the task's fault, not the answer's: say so beside the count. */
const referenceNote = (s: CodeScore) => {
  const n = s.reasons?.reference_error ?? 0; // records scored before reasons existed have none
  return n ? ` (the reference failed on ${n})` : '';
};

export function colbenchConversationView(
  r: ColbenchTrajectory & { score?: CodeScore | HtmlScore },
  task: ColbenchTask | undefined,
): ConversationView {
  const base = {
    id: `${r.taskId} #${r.sampleIndex}`,
    task: r.problem,
    turns: r.dialogue.map((t) => ({
      speaker: t.role,
      text: t.content,
      ...(t.noResponse ? { note: 'the endpoint refused: "No response." stood in' } : {}),
    })),
  };
  const how = `${r.agentTurns} agent turn(s)${r.answeredWithMarker ? '' : ', never answered'}`;
  const s = r.score;
  if (!s) return { ...base, outcome: 'unscored', summary: `not scored · ${how}` };
  if ('similarity' in s) {
    const outcome: Outcome = !s.answered ? 'wrong' : s.similarity >= SAME_PAGE ? 'correct' : 'partial';
    const images = [
      ...(s.answered && r.answer ? [{ label: "agent's page", ref: r.answer }] : []),
      ...(s.referenceImage ? [{ label: 'reference page', ref: s.referenceImage }] : []),
    ];
    return { ...base, outcome, summary: `similarity ${s.similarity.toFixed(3)}${s.answered ? '' : ' (no page)'} · ${how}`, images };
  }
  const outcome: Outcome = s.success ? 'correct' : s.passed > 0 ? 'partial' : 'wrong';
  const calls = task?.kind === 'code' ? task.testCases : {};
  const failures = s.tests
    .filter((t) => !t.passed)
    .map((t) => ({ name: t.name, call: calls[t.name] ?? t.name, ...(t.error ? { error: t.error } : {}) }));
  return {
    ...base,
    outcome,
    summary: `${s.passed}/${s.total} hidden tests passed${s.rejected ? ` (refused: ${s.rejected})` : ''}${referenceNote(s)} · ${how}`,
    failures,
  };
}
