// A stage's progress in words, the same on the terminal (`status`, `watch`, `start --wait`, `demo`) and in the
// Temporal UI's Current Details. "34 of 96", never "34/96": the UI renders details as markdown with typography.
import { durationOfSeconds } from './duration';
import type { CallCounts, StageProgress, TrainerProgress } from './progress';

/** Rates: two significant digits below 100, no trailing zeros ("0.5", "14", "1234"). */
export const rate = (n: number) => (n >= 100 ? String(Math.round(n)) : String(Number(n.toPrecision(2))));

export const usdText = (usd: number | undefined) => (usd === undefined ? 'no price set' : `$${usd.toFixed(4)}`);

// What the endpoint saw apart from what it did not: sent, then answered from the durable cache, then shared with an
// identical call in flight (counts made before `shared` existed say "ok" and fold shared answers into cached).
const callsText = (c: CallCounts) =>
  c.shared === undefined
    ? `${c.ok} ok, ${c.cached} cached, ${c.failed} failed, ${c.retried} retried`
    : `${c.ok} sent, ${c.cached} cached, ${c.shared} shared, ${c.failed} failed, ${c.retried} retried`;

/** "34 of 96 conversations" (or "34 conversations" while the total is unknown). */
export const countText = (p: Pick<StageProgress, 'done' | 'total' | 'unit'>) =>
  `${p.total !== undefined ? `${p.done} of ${p.total}` : p.done} ${p.unit}`;

/** "34 of 96 conversations · 0.8/s · ETA 1 min 17 s" */
export function countLine(p: StageProgress): string {
  return [
    countText(p),
    ...(p.perSecond !== undefined ? [`${rate(p.perSecond)}/s`] : []),
    `ETA ${p.etaSeconds !== undefined ? durationOfSeconds(p.etaSeconds) : 'not yet known'}`,
  ].join(' · ');
}

/** "calls 120 sent, 30 cached, 4 shared, 0 failed, 2 retried · 1.9 calls/s · tokens 10000 prompt + 2345 completion · 140 tokens/s · $0.0123" */
export function llmLine(p: StageProgress): string | undefined {
  if (!p.calls) return undefined;
  return [
    `calls ${callsText(p.calls)}`,
    ...(p.callsPerSecond !== undefined ? [`${rate(p.callsPerSecond)} calls/s`] : []),
    ...(p.tokens ? [`tokens ${p.tokens.prompt} prompt + ${p.tokens.completion} completion`] : []),
    ...(p.tokensPerSecond !== undefined ? [`${rate(p.tokensPerSecond)} tokens/s`] : []),
    usdText(p.usd),
  ].join(' · ');
}

/** "train critic_2: step 12 of 40 · loss 0.41 · 0.5 steps/s · ETA 56 s" */
export function trainerLine(t: TrainerProgress): string {
  return [
    `train${t.role ? ` ${t.role}` : ''}: step ${t.step}${t.total !== undefined ? ` of ${t.total}` : ''}`,
    ...(t.loss !== undefined ? [`loss ${Number(t.loss.toPrecision(4))}`] : []),
    ...(t.stepsPerSecond !== undefined ? [`${rate(t.stepsPerSecond)} steps/s`] : []),
    `ETA ${t.etaSeconds !== undefined ? durationOfSeconds(t.etaSeconds) : 'not yet known'}`,
  ].join(' · ');
}

/** The lines of a stage's progress: counts (or one line per trainer), then LLM calls, then the iteration's ETA. */
export function progressLines(p: StageProgress, iterationEta?: number): string[] {
  const lines = p.unit === 'steps' ? (p.trainers ?? []).map(trainerLine) : [`${p.stage}: ${countLine(p)}`];
  const llm = llmLine(p);
  if (llm) lines.push(llm);
  if (iterationEta !== undefined) lines.push(`iteration ETA ${durationOfSeconds(iterationEta)}`);
  return lines;
}
