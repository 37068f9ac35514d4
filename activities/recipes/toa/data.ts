// The student's data from each prompt's pool of scored responses (oceanypt/TOA README.md,
// "Synthesized Data Summary", and the released sets):
//   SFT — the best-scored response;
//   DPO — chosen = the best, rejected = the response at reward rank `dpoRank` (the seed: 30 of 160, "pi-0-ni-30"),
//         or the worst when fewer were scored; a prompt with fewer than two scored responses, or a tie between the
//         two, gives no pair. Failed responses (no reward) are never ranked.
import type { PreferencePair, SftExample } from '../../data/examples';
import type { Prompts } from '../prompt-texts';
import { generatePrompt } from './prompts';
import type { ToaBuildRecord } from './records';
import type { ToaTask } from './tasks';
import { byTaskAndSample } from '../shared/task-order';

/** Scored responses, best first; ties keep play order (the seed's stable sort). */
function ranked(r: ToaBuildRecord) {
  return r.search.results.responses.filter((x) => x.reward !== undefined).sort((a, b) => b.reward! - a.reward! || a.play - b.play);
}

/** One prompt's examples: none when no response was scored, a pair only when the best beats the rejected one. */
export function toaExamples(
  r: ToaBuildRecord,
  task: ToaTask,
  o: { dpoRank: number; prompts: Prompts },
): { sft?: SftExample; pair?: PreferencePair } {
  const scored = ranked(r);
  if (!scored.length) return {};
  const base = { taskId: r.taskId, sampleIndex: r.sampleIndex, turn: 0, messages: generatePrompt(o.prompts, task) };
  const rejected = scored[Math.min(o.dpoRank, scored.length) - 1];
  return {
    sft: { ...base, completion: scored[0].text },
    ...(scored.length >= 2 && scored[0].reward! > rejected.reward!
      ? { pair: { ...base, chosen: scored[0].text, rejected: rejected.text } }
      : {}),
  };
}

export function toaTrainingData(
  records: readonly ToaBuildRecord[],
  taskOf: (id: string) => ToaTask | undefined,
  o: { dpoRank: number; prompts: Prompts },
): { sft: SftExample[]; pairs: PreferencePair[] } {
  const sft: SftExample[] = [];
  const pairs: PreferencePair[] = [];
  for (const r of [...records].sort(byTaskAndSample)) {
    const task = taskOf(r.taskId);
    const ex = task ? toaExamples(r, task, o) : {};
    if (ex.sft) sft.push(ex.sft);
    if (ex.pair) pairs.push(ex.pair);
  }
  return { sft, pairs };
}
