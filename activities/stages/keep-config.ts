// The iteration's config, stored once: every later activity input names it by reference (contracts/activities.ts
// ConfigRef) and the activity wrapper loads it back (configOf), so history holds the config once per iteration, not
// once per shard.
import type { ActivitySignatures, ConfigRef } from '../../contracts/activities';
import type { LoopConfig } from '../../contracts/config';
import { storeFor } from '../artifacts/store';

export const keepConfig: ActivitySignatures['keepConfig'] = async ({ config }) => ({
  ref: await storeFor(config).putJson(config),
  stateDir: config.stateDir,
  ...(config.storage ? { storage: config.storage } : {}),
});

/** Configs loaded by this process, by hash: a worker runs many shards of the same few iterations. */
const loaded = new Map<string, Promise<LoopConfig>>();
const KEEP = 32;

/** The config a reference names (read once per process; the store checks the bytes against the hash). */
export function configOf(r: ConfigRef): Promise<LoopConfig> {
  let config = loaded.get(r.ref.sha256);
  if (!config) {
    config = storeFor({ stateDir: r.stateDir, storage: r.storage }).readJson<LoopConfig>(r.ref);
    config.catch(() => loaded.delete(r.ref.sha256)); // a store that could not be read is asked again next time
    loaded.set(r.ref.sha256, config);
    if (loaded.size > KEEP) loaded.delete(loaded.keys().next().value as string);
  }
  return config;
}
