// What the served weights answered to the deploy stage's probe prompts (activities/serving/probe.ts records them as
// an artifact; the summary carries only their ref and hash), read back for the report page and the CLI's lineage.
import type { IterationSummary, ProbeResult } from '../../contracts/run';
import type { ArtifactStore } from '../artifacts/store';

export interface ProbeAnswer {
  prompt: number;
  text: string;
  finishReason?: string;
}

/** `text` cut at `max` characters (an ellipsis says so), surrounding whitespace dropped. */
export function trimmedText(text: string, max: number): string {
  const s = text.trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

export async function probeAnswers(probe: ProbeResult, reader: ArtifactStore): Promise<ProbeAnswer[]> {
  const records = await reader.readJsonl<{ prompt: number; text?: string; finishReason?: string }>(probe.records);
  return records.map((r) => ({ prompt: r.prompt, text: r.text ?? '', ...(r.finishReason ? { finishReason: r.finishReason } : {}) }));
}

/** Per iteration with a probe, its answers, or why they could not be read (a moved artifact). */
export async function probeAnswersByIteration(
  rows: IterationSummary[],
  reader: ArtifactStore,
): Promise<Map<number, ProbeAnswer[] | Error>> {
  const read = await Promise.all(
    rows.map(async (r) => [r.iteration, r.probe ? await probeAnswers(r.probe, reader).catch((e: Error) => e) : undefined] as const),
  );
  return new Map(read.filter((e): e is readonly [number, ProbeAnswer[] | Error] => e[1] !== undefined));
}
