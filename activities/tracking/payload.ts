// What a run tells an experiment tracker, decided once for every tracker: the config as flat parameters, one row of
// metrics per finished iteration (step = iteration number), each iteration's lineage (which checkpoint was served,
// which data trained which checkpoint) and the trainer's loss per step.
import { storeFor } from '../artifacts/store';
import type { IterationSummary, LoopConfig } from '../../contracts/run';

export interface TrackedIteration {
  step: number;
  /** When the iteration's last stage ended (ms since epoch): the same on every retry, so re-logging is a no-op. */
  time: number;
  metrics: Record<string, number>;
  lineage: Record<string, string>;
  /** The trainer's loss per step, read from the artifact store only for the iterations a tracker still logs. */
  lossCurve: () => Promise<Array<{ step: number; loss: number }>>;
}

export interface TrackingPayload {
  runName: string;
  recipe: string;
  params: Record<string, string>;
  iterations: TrackedIteration[];
  final: boolean;
}

/** Longest parameter value MLflow stores (its MAX_PARAM_VAL_LENGTH); W&B gets the same values. */
const MAX_PARAM_LENGTH = 6000;

/**
 * The config as `a.b.c → value` strings. Left out: the trackers' own section, and the values of `trainer.env`
 * (a trainer's environment may carry tokens; its variable names are kept).
 */
export function flattenParams(config: LoopConfig): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (v: unknown, at: string[]) => {
    const key = at.join('.');
    if (key === 'tracking' || v === undefined) return;
    if (key === 'trainer.env' && v && typeof v === 'object') {
      out[key] = Object.keys(v).sort().join(',');
      return;
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, [...at, k]);
      return;
    }
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    out[key] = s.length > MAX_PARAM_LENGTH ? `${s.slice(0, MAX_PARAM_LENGTH - 1)}…` : s;
  };
  walk(config, []);
  return out;
}

function endTime(s: IterationSummary): number {
  const ends = Object.values(s.stages ?? {})
    .map((st) => Date.parse(st!.startedAt) + st!.ms)
    .filter(Number.isFinite);
  return ends.length ? Math.max(...ends) : Date.now();
}

/** Headline metrics plus the loop's own accounting: tokens, trainer steps and loss, seconds per stage. */
function iterationMetrics(s: IterationSummary): Record<string, number> {
  const m: Record<string, number> = { ...s.metrics, tokens: s.tokens };
  if (s.train?.steps !== undefined) m.train_steps = s.train.steps;
  if (s.train?.finalLoss !== undefined) m.train_final_loss = s.train.finalLoss;
  for (const [role, r] of Object.entries(s.models ?? {}))
    if (r.train?.finalLoss !== undefined) m[`train_final_loss.${role}`] = r.train.finalLoss;
  for (const [stage, st] of Object.entries(s.stages ?? {})) {
    m[`${stage}_seconds`] = st!.ms / 1000;
    if (st!.calls !== undefined) m[`${stage}_llm_calls`] = st!.calls;
  }
  return Object.fromEntries(Object.entries(m).filter(([, v]) => Number.isFinite(v)));
}

function lineage(s: IterationSummary): Record<string, string> {
  const l: Record<string, string> = { checkpoint: s.checkpoint };
  if (s.nextCheckpoint) l.next_checkpoint = s.nextCheckpoint;
  if (s.datasets?.sft) l.sft_data = s.datasets.sft.uri;
  if (s.datasets?.dpo) l.dpo_data = s.datasets.dpo.uri;
  if (s.probe) l.probe_answers_sha256 = s.probe.answersSha256;
  // Each model role's link of its chain (debate's six trained roles), beside the primary role's above.
  for (const [role, m] of Object.entries(s.models ?? {})) {
    const served = m.checkpoint ?? m.model;
    if (served) l[`role.${role}.checkpoint`] = served;
    if (m.nextCheckpoint) l[`role.${role}.next_checkpoint`] = m.nextCheckpoint;
    if (m.dataset) l[`role.${role}.data`] = m.dataset.uri;
  }
  for (const [stage, ref] of Object.entries(s.manifests)) l[`manifest.${stage}`] = ref.uri;
  return l;
}

/** The trainer's recorded curve; none when it was not recorded or can no longer be read. */
async function lossCurve(s: IterationSummary, config: LoopConfig): ReturnType<TrackedIteration['lossCurve']> {
  const ref = s.train?.lossCurve;
  if (!ref) return [];
  const rows = await storeFor(config)
    .readJsonl<{ step: number; loss: number }>(ref)
    .catch(() => []);
  return rows.filter((r) => Number.isFinite(r.loss));
}

export function trackingPayload(runName: string, config: LoopConfig, iterations: IterationSummary[], final: boolean): TrackingPayload {
  return {
    runName,
    recipe: config.recipe.name,
    params: flattenParams(config),
    iterations: iterations.map((s) => ({
      step: s.iteration,
      time: endTime(s),
      metrics: iterationMetrics(s),
      lineage: lineage(s),
      lossCurve: () => lossCurve(s, config),
    })),
    final,
  };
}
