// Reads back the conversation records an iteration evaluated, through its evaluate manifest (the lineage).
import path from 'node:path';
import { ArtifactStore } from '../../activities/artifacts/store';
import type { ArtifactRef, IterationSummary } from '../../workflows/types';

export function evaluatedRecords<T = { taskId: string; sampleIndex: number }>(stateDir: string, it: IterationSummary): T[] {
  const store = new ArtifactStore(path.join(stateDir, 'artifacts'));
  const manifest = store.readJson<{ inputs: Record<string, ArtifactRef | string> }>(it.manifests.evaluate);
  return Object.entries(manifest.inputs)
    .filter(([k]) => k.startsWith('eval_shard_'))
    .flatMap(([, ref]) => store.readJsonl<T>(ref as ArtifactRef));
}

/** Each (task, sample) exactly once. */
export function recordKeys(records: Array<{ taskId: string; sampleIndex: number }>): string[] {
  return records.map((r) => `${r.taskId}#${r.sampleIndex}`);
}
