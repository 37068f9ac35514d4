// Reads back the conversation records an iteration evaluated, through its evaluate manifest (the lineage).
import type { ArtifactRef, IterationSummary } from '../../contracts/run';
import { readJsonl, readJson } from './artifacts';

export function evaluatedRecords<T = { taskId: string; sampleIndex: number }>(it: IterationSummary): T[] {
  const manifest = readJson<{ inputs: Record<string, ArtifactRef | string> }>(it.manifests.evaluate);
  return Object.entries(manifest.inputs)
    .filter(([k]) => k.startsWith('eval_shard_'))
    .flatMap(([, ref]) => readJsonl<T>(ref as ArtifactRef));
}

/** Each (task, sample) exactly once. */
export function recordKeys(records: Array<{ taskId: string; sampleIndex: number }>): string[] {
  return records.map((r) => `${r.taskId}#${r.sampleIndex}`);
}
