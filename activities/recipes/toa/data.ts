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

const byTask = (a: ToaBuildRecord, b: ToaBuildRecord) =>
  a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : a.sampleIndex - b.sampleIndex;

/** Scored responses, best first; ties keep play order (the seed's stable sort). */
function ranked(r: ToaBuildRecord) {
  return r.search.results.responses.filter((x) => x.reward !== undefined).sort((a, b) => b.reward! - a.reward! || a.play - b.play);
}

export function toaTrainingData(
  records: readonly ToaBuildRecord[],
  taskOf: (id: string) => ToaTask | undefined,
  o: { dpoRank: number; prompts: Prompts },
): { sft: SftExample[]; pairs: PreferencePair[] } {
  const sft: SftExample[] = [];
  const pairs: PreferencePair[] = [];
  for (const r of [...records].sort(byTask)) {
    const task = taskOf(r.taskId);
    if (!task) continue;
    const scored = ranked(r);
    if (!scored.length) continue;
    const base = { taskId: r.taskId, sampleIndex: r.sampleIndex, turn: 0, messages: generatePrompt(o.prompts, task) };
    sft.push({ ...base, completion: scored[0].text });
    const rejected = scored[Math.min(o.dpoRank, scored.length) - 1];
    if (scored.length >= 2 && scored[0].reward! > rejected.reward!)
      pairs.push({ ...base, chosen: scored[0].text, rejected: rejected.text });
  }
  return { sft, pairs };
}
