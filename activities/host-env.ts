// Per-host settings of a worker process (`collab-loop worker --state-dir / --serve-host`), passed to the stages it
// runs through its environment: they describe the machine, not the run, so they never enter a workflow history.

/** This host's state dir (logs, trainer work dirs, fetched checkpoints), whatever the run's config says. */
export const STATE_DIR_ENV = 'COLLAB_LOOP_STATE_DIR';

/** The name other hosts reach the model servers this host starts by. */
export const SERVE_HOST_ENV = 'COLLAB_LOOP_SERVE_HOST';

/** The size cap of this host's checkpoint cache in GB (storage/checkpoint-cache.ts). */
export const CHECKPOINT_CACHE_GB_ENV = 'COLLAB_LOOP_CHECKPOINT_CACHE_GB';
