// The path fields of a config (declared where each section lives with contracts/config-fields.ts existingPath):
// made absolute relative to the config file, and checked to exist before a run starts — a missing checkpoint is
// one line naming its field here, not a failed deploy stage later. Checkpoints in the run's store (s3://…) are
// fetched by the stages that need them (activities/storage/checkpoints.ts) and are not checked here.
import { statSync } from 'node:fs';
import { isPublishedCheckpoint } from '../activities/storage/checkpoints';
import type { LocalPathMeta } from '../contracts/config-fields';
import type { LoopConfig } from '../contracts/config';
import { loopConfigSchema } from './schema';
import { pathFields } from './schema-walk';

const local = (p: string) => !isPublishedCheckpoint(p);

/** Sets every path field of `config` (changed in place) to `abs(value)`; checkpoint URIs stay as they are. */
export function resolvePathFields(config: LoopConfig, abs: (p: string) => string): void {
  for (const { field, value } of pathFields(loopConfigSchema, config)) {
    if (!local(value)) continue;
    let node = config as unknown as Record<string | number, unknown>;
    for (const k of field.slice(0, -1)) node = node[k] as Record<string | number, unknown>;
    node[field[field.length - 1]] = abs(value);
  }
}

const problemOf = (p: string, kind: LocalPathMeta['kind']): string | undefined => {
  const s = statSync(p, { throwIfNoEntry: false });
  if (kind === 'file') return !s ? `file not found: ${p}` : s.isDirectory() ? `is a directory, not a file: ${p}` : undefined;
  return !s ? `checkpoint directory not found: ${p}` : s.isDirectory() ? undefined : `is not a checkpoint directory: ${p}`;
};

/** The first path field of a resolved config (of the kinds asked for) that names nothing usable here, and why. */
export function missingPath(
  config: LoopConfig,
  kinds: ReadonlyArray<LocalPathMeta['kind']>,
): { field: string; detail: string } | undefined {
  for (const { field, value, meta } of pathFields(loopConfigSchema, config)) {
    const problem = kinds.includes(meta.kind) && local(value) ? problemOf(value, meta.kind) : undefined;
    if (problem) return { field: field.join('.'), detail: problem };
  }
  return undefined;
}

/** Whether a run reads its checkpoints on this config: it serves them (a server that is not external) or trains
 *  from them. An evaluation against external endpoints reads none. */
export const readsCheckpoints = (config: LoopConfig, o: { evalOnly?: boolean }) =>
  config.server.kind !== 'external' || (!!config.trainer && !o.evalOnly);
