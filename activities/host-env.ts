// Per-host settings of a worker process (`collab-loop worker --state-dir / --serve-host`), passed to the stages it
// runs through its environment: they describe the machine, not the run, so they never enter a workflow history.

/** This host's state dir (logs, trainer work dirs, fetched checkpoints), whatever the run's config says. */
export const STATE_DIR_ENV = 'COLLAB_LOOP_STATE_DIR';

/** The name other hosts reach the model servers this host starts by. */
export const SERVE_HOST_ENV = 'COLLAB_LOOP_SERVE_HOST';

/** The address the model servers this host starts listen on (`--serve-bind`): one interface instead of all. */
export const SERVE_BIND_ENV = 'COLLAB_LOOP_SERVE_BIND';

/** The GPU indices this host hands its trainers and model servers (`collab-loop worker --gpus 0,1,2,3`), comma-separated. */
export const GPUS_ENV = 'COLLAB_LOOP_GPUS';

/** A secret shared by the worker hosts of a cluster (set like the AWS_* credentials, on every host): each run's
 *  served-model key is derived from it (serving/served-key.ts), so no key travels through Temporal. */
export const SERVE_SECRET_ENV = 'COLLAB_LOOP_SERVE_SECRET';

/** The size cap of this host's checkpoint cache in GB (storage/checkpoint-cache.ts). */
export const CHECKPOINT_CACHE_GB_ENV = 'COLLAB_LOOP_CHECKPOINT_CACHE_GB';
