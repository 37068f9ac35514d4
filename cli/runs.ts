// Starting a run from a config file: load and check it (everything that needs no server), then start its loop.
// The commands that start runs load this inside their action (it reads the config schema and every recipe).
import type { Client, WorkflowHandle } from '@temporalio/client';
import { blameOverride, ConfigError, loadConfig, type LoadedConfig } from '../configs/load';
import { missingPath, readsCheckpoints } from '../configs/path-check';
import { recipeRuntime } from '../activities/recipes/runtime';
import type { LoopInput } from '../contracts/run';
import type { trainingLoop } from '../workflows/loop';
import { UserError } from './user-error';
import { isLocalStorage, objectStoreFor } from '../activities/storage/run-storage';
import { StorageError } from '../activities/storage/storage-error';
import { describeRun, lastStart, runState, startExecution } from './loop-workflow';

/** Checks inputs that activities would otherwise reject later (task files parse, checkpoints exist, etc.) — before
 *  anything starts, and before any connection to Temporal: a user mistake is reported as such even when no server
 *  is up. `evalOnly`: the run trains nothing, so a checkpoint only a trainer would read need not be here. */
export async function preflight(loaded: LoadedConfig, o: { evalOnly?: boolean } = {}): Promise<void> {
  const missing = readsCheckpoints(loaded.config, o) ? missingPath(loaded.config, ['checkpoint']) : undefined;
  if (missing) throw blameOverride(new ConfigError(loaded.file, missing.field, missing.detail), loaded.file, loaded.overrides ?? []);
  const rt = await recipeRuntime(loaded.config);
  if (rt.taskCount('eval') === 0) throw new UserError(`${loaded.file}: recipe.evalTasks: the task file has no tasks`);
  if (loaded.config.recipe.trainTasks) rt.taskCount('train');
}

/** Reads, validates and preflights an experiment file: everything that needs no Temporal server. */
export async function loadRunConfig(
  file: string,
  opts: { overrides?: string[]; name?: string; evalOnly?: boolean } = {},
): Promise<LoadedConfig> {
  const loaded = loadConfig(file, opts);
  await preflight(loaded, opts);
  await checkStorage(loaded);
  return loaded;
}

/** With an object store, the bucket must answer (credentials, endpoint, bucket) before a run starts that would
 *  otherwise fail its first stage on every host. At once: the user is waiting, and an endpoint that does not answer
 *  now is more likely mistyped than restarting (the stages wait out outages, storage.outageToleranceSeconds). */
async function checkStorage(loaded: LoadedConfig): Promise<void> {
  const storage = loaded.config.storage;
  if (isLocalStorage(loaded.config) || storage?.kind !== 's3') return;
  try {
    const now = { ...loaded.config, storage: { ...storage, outageToleranceSeconds: 0 } };
    await objectStoreFor(now).list(`artifacts/runs/${loaded.runName}/`);
  } catch (err) {
    if (err instanceof StorageError) throw new UserError(`${loaded.file}: storage: ${err.message}`);
    throw err;
  }
}

/** Call `loadRunConfig` first (it preflights). A name already used is refused — whatever its run's state — unless
 *  `restart`: then the run begins anew as the name's next restart, its files under their own folder
 *  (contracts/run-data-name.ts), leaving the earlier run's checkpoints as they are. */
export async function startLoop(
  client: Client,
  loaded: LoadedConfig,
  opts: { evalOnly?: boolean; restart?: boolean } = {},
): Promise<{ handle: WorkflowHandle<typeof trainingLoop>; input: LoopInput }> {
  const { config, runName } = loaded;
  const iterations = opts.evalOnly ? 1 : config.iterations;
  const existing = await describeRun(client, runName);
  let restart: number | undefined;
  if (existing?.status.name === 'RUNNING')
    throw new UserError(
      `run "${runName}" is running (collab-loop status ${runName}); stop it first (collab-loop stop ${runName}) or pick another --name`,
    );
  if (existing && !opts.restart) {
    const state = await runState(client, existing);
    // A run with every iteration done has nothing to continue (cli/continue-run.ts refuses it too).
    const resume = state === 'completed' ? '' : `\`collab-loop continue ${runName}\` resumes it, `;
    throw new UserError(
      `run "${runName}" already exists (${state}): ${resume}\`collab-loop start --restart\` begins it anew, or pick another --name`,
    );
  }
  if (existing) restart = ((await lastStart(client, runName)).input.restart ?? 0) + 1;
  const input: LoopInput = {
    runName,
    config: opts.evalOnly ? { ...config, iterations: 1 } : config,
    evalOnly: opts.evalOnly,
    ...(restart ? { restart } : {}),
  };
  const handle = await startExecution(client, {
    input,
    memo: { iterations },
    summary: `${config.recipe.name} loop **${runName}**${restart ? ` (restart ${restart})` : ''} · ${opts.evalOnly ? 'evaluation only' : `iterations 0–${iterations - 1}`}`,
    details: `config: \`${loaded.file}\`\n\nbase checkpoint: \`${config.baseCheckpoint}\`\n\nstate: \`${config.stateDir}\``,
    // A fresh name must stay fresh between the check above and the start; a restart replaces a closed run.
    reuse: existing ? 'ALLOW_DUPLICATE' : 'REJECT_DUPLICATE',
  });
  return { handle, input };
}
