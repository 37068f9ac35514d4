// The training loss per step of one trainer run, read back from its stage log. The log is appended by every attempt
// of the stage (it lives beside the trainer's work dir, so it survives a killed worker), so an attempt that resumed
// from step K continues the curve the earlier attempts drew; where attempts overlap, the later line wins.
import { existsSync, readFileSync } from 'node:fs';

export interface LossPoint {
  step: number;
  loss: number;
}

export function lossCurveFromLog(logFile: string, parse: (line: string) => { step?: number; loss?: number }): LossPoint[] {
  if (!existsSync(logFile)) return [];
  const byStep = new Map<number, number>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    const p = parse(line);
    if (p.step !== undefined && p.loss !== undefined && Number.isFinite(p.loss)) byStep.set(p.step, p.loss);
  }
  return [...byStep].sort((a, b) => a[0] - b[0]).map(([step, loss]) => ({ step, loss }));
}
