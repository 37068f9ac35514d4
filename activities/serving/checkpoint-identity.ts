// Which weights a checkpoint directory holds, for the request-cache key: two iterations that serve the same
// model name from different checkpoints must never share cached answers.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../storage/content-hash';

export const CHECKPOINT_MANIFEST = 'collab-loop-checkpoint.json';

export function checkpointIdentity(dir: string): string {
  const manifest = path.join(dir, CHECKPOINT_MANIFEST);
  if (existsSync(manifest)) return sha256Hex(readFileSync(manifest)).slice(0, 16);
  if (!existsSync(dir)) return sha256Hex(dir).slice(0, 16);
  // No manifest (e.g. a downloaded base model): path + file names + sizes is cheap and changes with the weights.
  const listing = statSync(dir).isDirectory()
    ? readdirSync(dir)
        .sort()
        .map((f) => `${f}:${statSync(path.join(dir, f)).size}`)
    : [String(statSync(dir).size)];
  return sha256Hex(JSON.stringify([path.resolve(dir), listing])).slice(0, 16);
}
