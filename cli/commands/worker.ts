// `collab-loop worker`: the workers of the given queue classes; the worker code loads only here (--help stays light).
import path from 'node:path';
import { type Command, Option } from 'commander';
import {
  CHECKPOINT_CACHE_GB_ENV,
  GPUS_ENV,
  SERVE_BIND_ENV,
  SERVE_HOST_ENV,
  SERVE_SECRET_ENV,
  STATE_DIR_ENV,
} from '../../activities/host-env';
import { gpuQueue } from '../../contracts/placement';
import { currentOnFirstRollout, DEFAULT_DEPLOYMENT } from '../../workers/deployment';
import { gpuOptions } from '../gpu-options';
import { portOption } from '../option-values';
import { DEFAULT_NAMESPACE, temporalTarget } from '../temporal-config';
import { cliAction, UserError } from '../user-error';

/** `--deployment [name]` / `--build-id`: versioned when either is given (workers/deployment.ts). */
function workerDeployment(o: { deployment?: string | true; buildId?: string }) {
  if (o.deployment === undefined && o.buildId === undefined) return undefined;
  const deploymentName = typeof o.deployment === 'string' ? o.deployment.trim() : DEFAULT_DEPLOYMENT;
  if (!deploymentName) throw new UserError('--deployment: the name is empty (leave it out for "collab-loop")');
  if (o.buildId !== undefined && !o.buildId.trim()) throw new UserError('--build-id: empty');
  return { deploymentName, buildId: o.buildId };
}

/** One line on which build new runs go to: this one, made current on a first rollout, or the current one. */
async function announceRouting(
  connection: import('@temporalio/worker').NativeConnection,
  namespace: string,
  v: { deploymentName: string; buildId: string },
): Promise<void> {
  try {
    const r = await currentOnFirstRollout(connection.workflowService, namespace, v);
    if (r === 'made-current')
      console.log(
        `collab-loop worker: build ${v.buildId} is now the current build of deployment ${v.deploymentName} (it had none): new runs start on it`,
      );
    else if (r.current !== v.buildId)
      console.log(
        `collab-loop worker: new runs go to build ${r.current}; to move them to this one: temporal worker deployment set-current-version --deployment-name ${v.deploymentName} --build-id ${v.buildId}`,
      );
  } catch (err) {
    console.warn(
      `collab-loop worker: could not read the routing of deployment ${v.deploymentName}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

export function workerCommand(program: Command): void {
  program
    .command('worker')
    .description('run workers for the given task-queue classes (default: all)')
    .option('--queues <list>', 'comma-separated: workflows,llm,cpu,gpu,sandbox')
    .option('--gpu-slots <n>', 'trainers and server starts the gpu worker runs at once (default: the number of --gpus, else 4)')
    .option(
      '--gpu-class <list>',
      'gpu hosts: comma-separated host classes / GPU types (e.g. a100); also polls collab-loop-gpu-<class>, where roles pinned with models.<role>.gpuClass go',
    )
    .option(
      '--gpus <list>',
      'gpu hosts: the GPU indices to hand out (e.g. 0,1,2,3); each trainer and model server gets its own as CUDA_VISIBLE_DEVICES',
    )
    .option(
      '--server-outage-tolerance <seconds>',
      'how long a finished stage holds its result for a Temporal server it cannot reach (a restart) before reporting it anyway',
      '600',
    )
    .option('--metrics-port <n>', 'serve Prometheus metrics (SDK worker metrics + collab_loop_*) on this port at /metrics', portOption)
    .option(
      '--metrics-host <addr>',
      'the address the metrics port listens on (default 127.0.0.1: this host only; e.g. the private address a Prometheus scrapes, or 0.0.0.0)',
      '127.0.0.1',
    )
    .option(
      '--serve-host <name>',
      'gpu hosts: the name other hosts reach the model servers this worker starts by (they then listen on all interfaces, or --serve-bind)',
    )
    .option('--serve-bind <addr>', "gpu hosts: the address the model servers listen on (e.g. the host's private-network address)")
    .option(
      '--keep-servers',
      'on exit, leave the model servers this worker started running for the workers that take over (restarting with a new build mid-iteration); otherwise they stop with it',
    )
    .option(
      '--deployment [name]',
      `versioned workers (Temporal Worker Versioning) of this deployment (default name "${DEFAULT_DEPLOYMENT}"): a new build takes work once made current (docs/operations.md, "Rolling upgrade of two hosts")`,
    )
    .option(
      '--build-id <id>',
      'the build these versioned workers are (implies --deployment; default: package version + hash of the workflow code)',
    )
    .option(
      '--state-dir <dir>',
      "this host's directory for logs, trainer work dirs and fetched checkpoints (and, with local storage, the run's artifacts); default: the run config's stateDir",
    )
    .option(
      '--checkpoint-cache-gb <gb>',
      "size cap of this host's cache of checkpoints fetched from (or published to) S3: least recently used ones are removed beyond it, never one being served",
      '100',
    )
    .addOption(
      new Option(
        '--log-level <level>',
        "the Temporal SDK's log lines at or above this level (debug adds the workflow bundle's build statistics)",
      )
        .choices(['trace', 'debug', 'info', 'warn', 'error'])
        .default('warn'),
    )
    .action(
      cliAction(
        async (o: {
          queues?: string;
          logLevel: string;
          gpuSlots?: string;
          gpuClass?: string;
          gpus?: string;
          serverOutageTolerance: string;
          metricsPort?: number;
          stateDir?: string;
          checkpointCacheGb: string;
          serveHost?: string;
          serveBind?: string;
          metricsHost: string;
          keepServers?: boolean;
          deployment?: string | true;
          buildId?: string;
        }) => {
          const cacheGb = Number(o.checkpointCacheGb);
          if (!(cacheGb >= 0) || o.checkpointCacheGb.trim() === '')
            throw new UserError(`--checkpoint-cache-gb: "${o.checkpointCacheGb}" is not a number of GB (e.g. 100, or 0.5)`);
          process.env[CHECKPOINT_CACHE_GB_ENV] = String(cacheGb);
          // Read by every stage this process runs (activities/storage/run-storage.ts, serving/server-launch.ts).
          if (o.stateDir) process.env[STATE_DIR_ENV] = path.resolve(o.stateDir);
          if (o.serveHost && !process.env[SERVE_SECRET_ENV])
            throw new UserError(
              `--serve-host: set ${SERVE_SECRET_ENV} (the same secret on every host): servers other hosts reach require each run's key, derived from it`,
            );
          if (o.serveHost) process.env[SERVE_HOST_ENV] = o.serveHost;
          if (o.serveBind) process.env[SERVE_BIND_ENV] = o.serveBind;
          const { NativeConnection } = await import('@temporalio/worker');
          const { ALL_QUEUES, createWorkers, runWorkers } = await import('../../workers/run-worker');
          const { installWorkerLogging } = await import('../../workers/logging');
          try {
            installWorkerLogging(o.logLevel.toUpperCase() as 'WARN', o.metricsPort, o.metricsHost);
          } catch (err) {
            throw new UserError(`--metrics-port ${o.metricsPort} on ${o.metricsHost}: ${err instanceof Error ? err.message : String(err)}`);
          }
          const queues = o.queues ? o.queues.split(',').map((q) => q.trim()) : ALL_QUEUES;
          const bad = queues.filter((q) => !(ALL_QUEUES as string[]).includes(q));
          if (bad.length) throw new UserError(`--queues: unknown queue class ${bad.join(', ')} (known: ${ALL_QUEUES.join(', ')})`);
          const { gpuClasses, gpuSlots } = gpuOptions(o, queues);
          const serverOutageToleranceSeconds = Number(o.serverOutageTolerance);
          if (!Number.isInteger(serverOutageToleranceSeconds) || serverOutageToleranceSeconds < 0)
            throw new UserError(`--server-outage-tolerance: "${o.serverOutageTolerance}" is not a whole number of seconds`);
          const deployment = workerDeployment(o);
          const target = temporalTarget();
          const { connectDiagnosingTls } = await import('../tls-diagnosis');
          const connection = await connectDiagnosingTls(target, () => NativeConnection.connect(target.connection));
          const { namespace } = target;
          const workers = await createWorkers({
            connection,
            namespace,
            queues: queues as typeof ALL_QUEUES,
            gpuSlots,
            gpuClasses,
            serverOutageToleranceSeconds,
            deployment,
          });
          const version = workers[0].options.workerDeploymentOptions?.version;
          const asBuild = version ? ` as build ${version.buildId} of deployment ${version.deploymentName}` : '';
          const inNamespace = namespace === DEFAULT_NAMESPACE ? '' : ` in namespace ${namespace}`;
          const metricsAt = o.metricsPort ? `, metrics on ${o.metricsHost}:${o.metricsPort}/metrics` : '';
          const classes = gpuClasses.length ? ` and ${gpuClasses.map(gpuQueue).join(', ')}` : '';
          const devices = process.env[GPUS_ENV] ? `, GPUs ${process.env[GPUS_ENV]}` : '';
          console.log(
            `collab-loop worker polling ${queues.join(', ')}${classes}${asBuild} on ${target.address}${inNamespace} (pid ${process.pid})${devices}${metricsAt}`,
          );
          if (version) void announceRouting(connection, namespace, version);
          await runWorkers(workers, undefined, { keepServers: o.keepServers });
          await connection.close();
        },
      ),
    );
}
