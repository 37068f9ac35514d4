// Shared by adapters: the highest-numbered checkpoint directory (by a name pattern) that passes a completeness check.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ResumePoint } from './types';

export function latestCompleteDir(dir: string, pattern: RegExp, complete: (d: string) => boolean): ResumePoint | undefined {
  if (!existsSync(dir)) return undefined;
  let best: ResumePoint | undefined;
  for (const name of readdirSync(dir)) {
    const m = pattern.exec(name); // anchored patterns also rule out `step_6.tmp` and other partial names
    if (!m) continue;
    const step = Number(m[1]);
    const full = path.join(dir, name);
    if (best && step <= best.step) continue;
    if (statSync(full).isDirectory() && complete(full)) best = { path: full, step };
  }
  return best;
}
