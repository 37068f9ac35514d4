// A built dataset as the trainer reads it: JSONL rows kept as an artifact of the run's store.
import type { ArtifactRef } from '../../contracts/artifact-ref';
import type { ArtifactStore } from '../artifacts/store';

/** The rows as a JSONL artifact; none for no rows (a dataset the trainer skips). */
export const datasetRef = async (store: ArtifactStore, lines: string[]): Promise<ArtifactRef | undefined> =>
  lines.length ? store.put(`${lines.join('\n')}\n`, { ext: '.jsonl', rows: lines.length }) : undefined;
