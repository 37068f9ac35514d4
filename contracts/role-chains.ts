// Each model role's checkpoint chain across a run's iterations — what `status`, the loop's UI details and the
// report show, so a society of trained models (debate's generators and critics) reads as one line per role.
import { checkpointName } from './iteration-label';
import type { IterationSummary, RoleKind } from './run';

export interface RoleChain {
  role: string;
  kind: RoleKind;
  /** Checkpoints in order: the one served in the first iteration, then each one training made. */
  chain: string[];
  /** Iterations where a trained role kept its checkpoint, and why. */
  skipped: string[];
}

/** A role's checkpoint as a short name: `…/iter-2/critic_0` → `iter-2`, `…/iter-2` → `iter-2`. */
const shortName = (checkpoint: string, role: string) => {
  const name = checkpointName(checkpoint);
  return name === role ? checkpointName(checkpoint.replace(/\/+$/, '').slice(0, -role.length)) : name;
};

export function roleChains(done: readonly IterationSummary[]): RoleChain[] {
  const chains = new Map<string, RoleChain>();
  for (const it of done) {
    for (const [role, m] of Object.entries(it.models ?? {})) {
      const c = chains.get(role) ?? { role, kind: m.kind, chain: [], skipped: [] };
      chains.set(role, c);
      const served = m.checkpoint ?? m.model;
      if (served && c.chain[c.chain.length - 1] !== served) c.chain.push(served);
      if (m.nextCheckpoint) c.chain.push(m.nextCheckpoint);
      if (m.skipped) c.skipped.push(`iteration ${it.iteration}: ${m.skipped}`);
    }
  }
  return [...chains.values()];
}

/** `sim-base → iter-1 → iter-2 (kept in iteration 1: no examples)`. */
export const chainText = (c: RoleChain) =>
  `${c.chain.map((ck) => (c.kind === 'external' ? ck : shortName(ck, c.role))).join(' → ')}${c.skipped.length ? ` (kept in ${c.skipped.join('; ')})` : ''}`;

/** `generator_0 (trained): sim-base → iter-1 → iter-2`, one line per role. */
export function roleChainLines(done: readonly IterationSummary[]): string[] {
  return roleChains(done).map((c) => `${c.role} (${c.kind}): ${chainText(c)}`);
}
