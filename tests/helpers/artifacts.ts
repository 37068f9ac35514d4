// Tests read a local run's artifacts by their file: URIs, synchronously and hash-checked (stages go through the
// run's store: activities/artifacts/store.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checked, parseJsonl } from '../../activities/artifacts/store';

type Ref = { uri: string; sha256: string };

export const artifactPath = (ref: { uri: string }): string => fileURLToPath(ref.uri);

export function readArtifactText(ref: Ref): string {
  return checked(ref, readFileSync(artifactPath(ref))).toString('utf8');
}

export const readJsonl = <T>(ref: Ref): T[] => parseJsonl<T>(readArtifactText(ref));
export const readJson = <T>(ref: Ref): T => JSON.parse(readArtifactText(ref)) as T;
