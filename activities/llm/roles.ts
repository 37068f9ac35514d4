// The model roles of a run: the roles its recipe declares (RecipeDefinition.roles, given by the stage that resolved
// the recipe), each played as the config's `models:` section says (trained / frozen / external) or, where it is
// silent, as the recipe's default. One place resolves them for the deploy, generate, build-data and train stages.
import type { LoopConfig } from '../../contracts/config';
import type { ExternalEndpoint, RoleKind } from '../../contracts/config-fields';
import type { RoleDefault } from '../recipes/types';
import { newUsageCounter, type UsageCounter } from './usage';
import { externalEndpointRef } from '../../contracts/endpoint';
import type { EndpointRef } from '../../contracts/endpoint';
import type { Chat } from './types';

export type ResolvedRole = { kind: 'trained' | 'frozen'; checkpoint: string } | { kind: 'external'; endpoint: ExternalEndpoint };

/** The roles a recipe declares for a config, in order, each with its kind when the `models:` section is silent. */
export type DeclaredRoles = Record<string, RoleDefault>;

/** The config's roles, in the recipe's order. A trained role plays `current[role]` (its chain so far) or, before
 *  its first training, `models.<role>.from`, else `primary` (the loop's checkpoint: the base in iteration 0, and
 *  the one trained checkpoint of runs recorded before roles had chains of their own). */
export function modelRoles(
  config: Pick<LoopConfig, 'models' | 'baseCheckpoint'>,
  declared: DeclaredRoles,
  primary: string,
  current: Record<string, string> = {},
): Record<string, ResolvedRole> {
  const out: Record<string, ResolvedRole> = {};
  for (const [role, fallback] of Object.entries(declared)) {
    const m = config.models?.[role] ?? { kind: fallback };
    out[role] =
      m.kind === 'external'
        ? { kind: 'external', endpoint: m.endpoint }
        : m.kind === 'trained'
          ? { kind: 'trained', checkpoint: current[role] ?? m.from ?? primary }
          : { kind: 'frozen', checkpoint: m.checkpoint ?? config.baseCheckpoint };
  }
  return out;
}

export const rolesOfKind = (roles: Record<string, ResolvedRole>, kind: RoleKind): string[] =>
  Object.keys(roles).filter((r) => roles[r].kind === kind);

/** The endpoint of every role: external ones from the config, served ones from the deploy stage (`served`), and in
 *  iterations deployed before roles were served separately, the one served `agent`. */
export function roleEndpoints(
  config: LoopConfig,
  declared: DeclaredRoles,
  agent: EndpointRef,
  served: Record<string, EndpointRef> = {},
): Record<string, EndpointRef> {
  return Object.fromEntries(
    Object.entries(modelRoles(config, declared, '')).map(([role, r]) => [
      role,
      r.kind === 'external' ? externalEndpointRef(r.endpoint) : (served[role] ?? agent),
    ]),
  );
}

/** A chat per role, each through the durable request cache. */
export function roleChats(endpoints: Record<string, EndpointRef>, make: (e: EndpointRef, role: string) => Chat): Record<string, Chat> {
  return Object.fromEntries(Object.entries(endpoints).map(([role, e]) => [role, make(e, role)]));
}

/** A chat per role with a usage counter per role (what each role spent: activities/llm/spend.ts). */
export function countedRoleChats(
  endpoints: Record<string, EndpointRef>,
  make: (e: EndpointRef, usage: UsageCounter, role: string) => Chat,
): { chats: Record<string, Chat>; usage: Record<string, UsageCounter> } {
  const usage: Record<string, UsageCounter> = {};
  const chats: Record<string, Chat> = {};
  for (const [role, e] of Object.entries(endpoints)) {
    usage[role] = newUsageCounter();
    chats[role] = make(e, usage[role], role);
  }
  return { chats, usage };
}

/** The counters of several roles (or calls) as one. */
export function totalUsage(counters: readonly UsageCounter[]): UsageCounter {
  const total = newUsageCounter();
  for (const c of counters) for (const k of Object.keys(total) as Array<keyof UsageCounter>) total[k] += c[k];
  return total;
}

/** The role whose chain is the loop's checkpoint: the first trained role, else the first role. */
export const primaryRole = (roles: Record<string, ResolvedRole>): string | undefined =>
  rolesOfKind(roles, 'trained')[0] ?? Object.keys(roles)[0];
