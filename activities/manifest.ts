// Builds the lineage record every stage writes: inputs, params, outputs, token counts and code version.
import { execFileSync } from 'node:child_process';
import type { StageManifest } from './artifacts/store';
import type { StorageOf } from './storage/run-storage';
import { storeFor } from './artifacts/store';
import { PROJECT_ROOT } from './subprocess/node-script';

let version: string | undefined;
/** The project's git commit (+ "-dirty"), or the package version outside a checkout. */
export function codeVersion(): string {
  if (version) return version;
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    version = dirty ? `${head}-dirty` : head;
  } catch {
    version = 'unknown';
  }
  return version;
}

export function writeStageManifest(config: StorageOf, m: Omit<StageManifest, 'codeVersion' | 'createdAt'>) {
  return storeFor(config).writeManifest({ ...m, codeVersion: codeVersion(), createdAt: new Date().toISOString() });
}
