// Reads back the conversation records an iteration evaluated, through its evaluate manifest (the lineage).
import type { ArtifactStore } from '../../activities/artifacts/store';
import type { ArtifactRef, IterationSummary } from '../../contracts/run';
import { readJsonl, readJson } from './artifacts';

export function evaluatedRecords<T = { taskId: string; sampleIndex: number }>(it: IterationSummary): T[] {
  const manifest = readJson<{ inputs: Record<string, ArtifactRef | string> }>(it.manifests.evaluate);
  return Object.entries(manifest.inputs)
    .filter(([k]) => k.startsWith('eval_shard_'))
    .flatMap(([, ref]) => readJsonl<T>(ref as ArtifactRef));
}

/** The same, read through the run's store (an S3 bucket as well as a local directory). */
export async function evaluatedRecordsIn<T = { taskId: string; sampleIndex: number }>(
  store: ArtifactStore,
  it: IterationSummary,
): Promise<T[]> {
  const manifest = await store.readJson<{ inputs: Record<string, ArtifactRef | string> }>(it.manifests.evaluate);
  const shards = Object.entries(manifest.inputs).filter(([k]) => k.startsWith('eval_shard_'));
  return store.readJsonlAll<T>(shards.map(([, ref]) => ref as ArtifactRef));
}

/** Each (task, sample) exactly once. */
export function recordKeys(records: Array<{ taskId: string; sampleIndex: number }>): string[] {
  return records.map((r) => `${r.taskId}#${r.sampleIndex}`);
}
