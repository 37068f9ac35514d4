// How a TOA record shows in the report's conversation browser: the prompt, the student's response and its reward,
// and (evaluation with recipe.compare) each method's best response with its reward at its FLOPs, and — with
// recipe.evaluation — each text's AlpacaEval-style verdict against the reference; a built pool shows its best response.
import type { ConversationView } from '../../report/conversation-view';
import type { ToaBuildRecord, ToaEvalRecord } from './records';
import type { ToaTask } from './tasks';

const fmt = (x?: number) => (x === undefined ? 'failed' : x.toFixed(3));

export function toaRecordView(r: ToaEvalRecord | ToaBuildRecord, task?: ToaTask): ConversationView {
  const id = `${r.taskId} #${r.sampleIndex}`;
  if (r.kind === 'build') {
    const best = r.search.results.best;
    return {
      id,
      outcome: best ? 'correct' : 'wrong',
      summary: `${r.search.method} · ${r.search.budget} responses · best ${fmt(best?.reward)} by ${best?.model ?? '—'} · ${r.search.results.failed} failed`,
      task: task?.instruction,
      turns: best ? [{ speaker: best.model, text: best.text, note: `${best.action}, play ${best.play}` }] : [],
    };
  }
  const methods = Object.entries(r.methods).map(
    ([m, s]) => `${m} best ${fmt(s?.best?.reward)} (${(s?.flops ?? 0).toExponential(2)} FLOPs)`,
  );
  /** The AlpacaEval-style game against the reference: "beats the reference", "loses to it", or why there is none. */
  const verdict = (who: string) => {
    const a = r.judged?.[who]?.alpaca;
    if (!a) return undefined;
    return 'value' in a ? (a.value === 1 ? 'preferred to the reference' : 'reference preferred') : `judge failed: ${a.failed}`;
  };
  const note = (...parts: Array<string | undefined>) => parts.filter(Boolean).join(' · ');
  const best = Object.entries(r.methods).flatMap(([m, s]) =>
    s?.best?.text
      ? [{ speaker: m, text: s.best.text, note: note(`best of ${s.budget}: reward ${fmt(s.best.reward)} by ${s.best.model}`, verdict(m)) }]
      : [],
  );
  const studentNote = note(r.student.failed, verdict('student'));
  return {
    id,
    // A reward model's score has no right answer: every scored response is `scored`, a failed score `unscored`.
    outcome: r.student.reward === undefined ? 'unscored' : 'scored',
    summary: [`student reward ${fmt(r.student.reward)}`, ...methods].join(' · '),
    task: task?.instruction,
    turns: [{ speaker: 'student', text: r.student.text, ...(studentNote ? { note: studentNote } : {}) }, ...best],
  };
}
