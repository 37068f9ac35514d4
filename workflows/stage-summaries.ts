// One-line summaries of each activity, shown in the Temporal UI's timeline and event history instead of a bare
// activity type ("shard 3/6 · eval · 8 conversations", "train dpo · 8 steps", "deploy transformers · iter-1").
import { checkpointName } from '../contracts/iteration-label';
import type { LoopConfig, ShardSpec } from '../contracts/run';
import { code } from './details';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `checkpoints`: each trained role's checkpoint, when the roles have chains of their own. */
export function deploySummary(config: LoopConfig, checkpoint: string, checkpoints: Record<string, string> = {}): string {
  const distinct = new Set(Object.values(checkpoints)).size;
  return `deploy ${config.server.kind} · ${distinct > 1 ? `${distinct} trained checkpoints` : checkpointName(checkpoint)}`;
}
export const undeploySummary = (config: LoopConfig) => `undeploy ${config.server.kind}`;
export const planSummary = (config: LoopConfig) =>
  `plan shards · ${config.recipe.name} · ${plural(config.generation.shardSize, 'conversation')} per shard`;

/** `of` = shards of the same split, so the numbering matches what a user counts per split. */
export function shardSummary(verb: 'shard' | 'score shard', shard: ShardSpec, of: number): string {
  const size = shard.conversations !== undefined ? plural(shard.conversations, 'conversation') : plural(shard.end - shard.start, 'task');
  return `${verb} ${shard.index + 1}/${of} · ${shard.split} · ${size}`;
}

export const evaluateSummary = (conversations: number) => `evaluate · ${plural(conversations, 'conversation')}`;
export const buildDataSummary = (config: LoopConfig, conversations: number) =>
  `build ${config.trainer?.method ?? 'training'} data · ${plural(conversations, 'conversation')}`;

export const scorerDataSummary = (roles: string[], conversations: number) =>
  `build ${roles.join(', ')} data · ${plural(conversations, 'conversation')}`;
export const serveScorersSummary = (roles: string[]) => `serve ${roles.join(', ')} (trained this iteration)`;

/** `role`: the model role, when an iteration trains several. */
export function trainSummary(config: LoopConfig, role?: string): string {
  const t = config.trainer;
  if (!t) return 'train';
  // A command trainer's length is whatever its template says; an adapter's is maxSteps or epochs.
  const length =
    t.maxSteps !== undefined ? ` · ${plural(t.maxSteps, 'step')}` : t.kind === 'command' ? '' : ` · ${plural(t.epochs, 'epoch')}`;
  return `train ${role ? `${role} · ` : ''}${t.method} · ${t.kind}${length}`;
}

export const trackSummary = (iterations: number, final: boolean) => `track ${plural(iterations, 'iteration')}${final ? ' · final' : ''}`;

/** An iteration's UI summary and details: the checkpoint it serves or, when its trained roles serve different
 *  ones, how many, with each role's checkpoint in the details (the loop's checkpoint is only the primary role's). */
export function iterationStartSummary(
  runName: string,
  iteration: number,
  checkpoint: string,
  checkpoints: Record<string, string> = {},
): { staticSummary: string; staticDetails?: string } {
  const distinct = new Set(Object.values(checkpoints)).size;
  const served = distinct > 1 ? `${Object.keys(checkpoints).length} roles on ${distinct} checkpoints` : `checkpoint ${checkpoint}`;
  const roles = Object.entries(checkpoints).map(([role, c]) => `- ${role}: ${code(c)}`);
  return {
    staticSummary: `${runName} · iteration ${iteration} · ${served}`,
    ...(roles.length ? { staticDetails: ['served checkpoints:', '', ...roles].join('\n') } : {}),
  };
}
