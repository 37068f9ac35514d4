// collab-loop: start, watch and steer durable self-improvement loops. One file per concern under cli/.
import { Command, Option } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  iterationConfigQuery,
  iterationWorkflowId,
  loopWorkflowId,
  pauseSignal,
  retryStageUpdate,
  stopSignal,
} from '../contracts/messages';
import { STAGES, type Stage } from '../contracts/run';
import { applyOverridesToConfig } from '../configs/load';
import { connectClient, ensureSearchAttributes } from './connection';
import { DEFAULT_NAMESPACE, temporalTarget } from './temporal-config';
import { cliAction, UserError } from './user-error';
import { getRunStatusRetrying, loadRunConfig, requireRunning, runConfig, startLoop } from './runs';
import { followRun } from './watch-run';
import { continueLoop } from './continue-run';
import { runDataName } from '../contracts/run-data-name';
import { lineageLines, metricsTable, renderStatus, trainedCheckpoint } from './format';
import { listRuns, renderRunRows } from './list-runs';
import { probeAnswersByIteration } from '../activities/report/probe-text';
import { storeFor } from '../activities/artifacts/store';
import { CHECKPOINT_CACHE_GB_ENV, GPUS_ENV, SERVE_BIND_ENV, SERVE_HOST_ENV, SERVE_SECRET_ENV, STATE_DIR_ENV } from '../activities/host-env';
import { gpuQueue } from '../contracts/placement';
import { gpuOptions } from './gpu-options';
import { SCORE_HELP, scoreFile, type ScoreOptions } from './score';
import { connectClientRetrying, isTransientServerError, serverRetryMs, withServerRetry } from './server-retry';
import { currentOnFirstRollout, DEFAULT_DEPLOYMENT } from '../workers/deployment';

const collect = (v: string, prev: string[]) => [...prev, v];
const program = new Command('collab-loop')
  .description('Durable self-improvement loops for collaborative and multi-agent LLMs (Temporal workflows)')
  .showHelpAfterError();

const port = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new UserError(`"${v}" is not a port number`);
  return n;
};

program
  .command('server')
  .description('run the Temporal dev server (persistent SQLite under --state-dir, UI on --ui-port)')
  .option('--state-dir <dir>', 'where temporal.sqlite lives', 'state')
  .option('--port <n>', 'gRPC port', '7233')
  .option('--ui-port <n>', 'web UI port', '8233')
  .option('--detach', 'start it in the background (logging to <state-dir>/temporal-server.log) and return')
  .action(
    cliAction(async (o: { stateDir: string; port: string; uiPort: string; detach?: boolean }) => {
      const ports = { port: port(o.port), uiPort: port(o.uiPort) };
      if (o.detach) {
        const { ensureDevServer } = await import('./server-control');
        const s = await ensureDevServer(o.stateDir, ports);
        if (!s.started) return console.log(`a server is already listening on ${s.address}; UI ${s.uiUrl}`);
        console.log(`Temporal dev server on ${s.address}, UI ${s.uiUrl} (pid ${s.pid}, log ${s.log}); stop it with: kill ${s.pid}`);
        return;
      }
      const { runDevServer } = await import('./server-control');
      console.log(`Temporal dev server on 127.0.0.1:${o.port}, UI http://localhost:${o.uiPort} (state ${o.stateDir}/temporal.sqlite)`);
      process.exitCode = await runDevServer({ stateDir: o.stateDir, ...ports });
    }),
  );

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

program
  .command('dev-stack')
  .description(
    'for a multi-host rehearsal: the Temporal dev server, SeaweedFS (S3) with a bucket and Redis, their data under --state-dir; prints what the other hosts set',
  )
  .option('--state-dir <dir>', 'their data, logs, pid files and credentials.env', 'state/dev-stack')
  .option('--temporal-port <n>', 'Temporal gRPC port', '7233')
  .option('--ui-port <n>', 'Temporal web UI port', '8233')
  .option('--s3-port <n>', 'SeaweedFS S3 port', '8333')
  .option('--redis-port <n>', 'Redis port', '6379')
  .option('--bucket <name>', 'the bucket created for runs', 'collab-loop')
  .option('--detach', 'start them in the background and return (stop them with --stop)')
  .option('--stop', 'stop the stack started under --state-dir')
  .action(
    cliAction(
      async (
        o: {
          stateDir: string;
          temporalPort: string;
          uiPort: string;
          s3Port: string;
          redisPort: string;
          bucket: string;
          detach?: boolean;
          stop?: boolean;
        },
        cmd: Command,
      ) => {
        const { checkBucketName, startDevStack, stopDevStack } = await import('./dev-stack');
        if (o.stop) {
          const given = cmd.options.filter((opt) => opt.attributeName() !== 'stateDir' && opt.attributeName() !== 'stop');
          const extra = given.find((opt) => cmd.getOptionValueSource(opt.attributeName()) === 'cli');
          if (extra) throw new UserError(`--stop takes only --state-dir (not ${extra.long})`);
          const stopped = await stopDevStack(o.stateDir);
          return console.log(stopped.length ? `stopped ${stopped.join(', ')}` : `no dev stack was running under ${o.stateDir}`);
        }
        const ports = { temporal: port(o.temporalPort), ui: port(o.uiPort), s3: port(o.s3Port), redis: port(o.redisPort) };
        const { settings, children } = await startDevStack({
          stateDir: o.stateDir,
          ports,
          bucket: checkBucketName(o.bucket),
          detach: !!o.detach,
        });
        console.log(settings);
        if (o.detach) return;
        console.log('# running; Ctrl-C stops all three');
        const ended = await new Promise<string>((resolve) => {
          for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
          for (const c of children) c.once('exit', (code, sig) => resolve(`a service exited (${code ?? sig})`));
        });
        await stopDevStack(o.stateDir);
        if (!ended.startsWith('SIG')) throw new Error(`${ended}; stopped the others (logs under ${o.stateDir})`);
      },
    ),
  );

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
  .option('--metrics-port <n>', 'serve Prometheus metrics (SDK worker metrics + collab_loop_*) on this port at /metrics', port)
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
        const { ALL_QUEUES, createWorkers, runWorkers } = await import('../workers/run-worker');
        const { installWorkerLogging } = await import('../workers/logging');
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
        const { connectDiagnosingTls } = await import('./tls-diagnosis');
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

program
  .command('start <config>')
  .description('start a loop (workers must be running: collab-loop worker); a name already used is refused')
  .option('--name <name>', 'run name (default: config name or file name)')
  .option('--set <key=value>', 'override a config field (repeatable)', collect, [])
  .option('--restart', "begin a used name's run anew; the earlier run's files stay where they are")
  .option('--wait', 'show its progress live until the run closes, then its metrics (as `watch`)')
  .action(
    cliAction(async (file: string, o: { name?: string; set: string[]; restart?: boolean; wait?: boolean }) => {
      const loaded = await loadRunConfig(file, { overrides: o.set, name: o.name });
      const client = await connectClient();
      await ensureSearchAttributes(client);
      const { handle, input } = await startLoop(client, loaded, { restart: o.restart });
      const files = input.restart ? `, restart ${input.restart}: its files go under ${runDataName(input)}/ in the state dir` : '';
      console.log(`started run ${loaded.runName} (workflow ${handle.workflowId})${files}`);
      if (o.wait) await followRun(client, loaded.runName);
    }),
  );

program
  .command('continue <name>')
  .description('go on with a stopped, failed, terminated or timed-out run from its last finished iteration')
  .option('--wait', 'show its progress live until the run closes, then its metrics (as `watch`)')
  .action(
    cliAction(async (name: string, o: { wait?: boolean }) => {
      const client = await connectClient();
      const { input, state } = await continueLoop(client, name);
      console.log(
        `run ${name}: continuing at iteration ${state.iteration} of ${input.config.iterations} from checkpoint ${state.checkpoint}`,
      );
      if (o.wait) await followRun(client, name);
    }),
  );

program
  .command('status <name>')
  .description('iteration, stage, progress counts, tokens and metrics of a run')
  .option('--json', 'machine-readable')
  .option('--config', 'the config the run goes on with (the file, plus every `retry --set` change), as YAML')
  .action(
    cliAction(async (name: string, o: { json?: boolean; config?: boolean }) => {
      const client = await connectClientRetrying('status');
      const s = await getRunStatusRetrying(client, name);
      if (o.config) {
        // A running iteration's config holds its own retry's change before the loop carries it on.
        const running = s.workflowStatus === 'RUNNING' && s.iteration;
        const config = running
          ? await client.workflow.getHandle(iterationWorkflowId(name, s.loop.iteration)).query(iterationConfigQuery)
          : await runConfig(client, name);
        console.log(stringifyYaml(config ?? null).trimEnd());
        return;
      }
      console.log(o.json ? JSON.stringify(s, null, 2) : renderStatus(s));
    }),
  );

program
  .command('watch <name>')
  .description(
    'show a run live until it closes: stage, counts, rate, ETA, LLM calls, tokens, spend, trainer step and loss; exit 0 when it completed (Ctrl-C detaches, the run goes on)',
  )
  .action(
    cliAction(async (name: string) => {
      const client = await connectClientRetrying('status');
      await followRun(client, name);
    }),
  );

program
  .command('list')
  .description('runs known to the server: state, iteration, stage and start')
  .option('--json', 'one JSON array of {run, recipe, state, iteration, iterations, stage, started}')
  .action(
    cliAction(async (o: { json?: boolean }) => {
      const client = await connectClientRetrying('status');
      const rows = await withServerRetry(() => listRuns(client), { what: 'listing runs', giveUpAfterMs: serverRetryMs('status') });
      console.log(o.json ? JSON.stringify(rows, null, 2) : renderRunRows(rows));
    }),
  );

for (const [cmd, paused] of [
  ['pause', true],
  ['resume', false],
] as const)
  program
    .command(`${cmd} <name>`)
    .description(paused ? 'pause at the next stage boundary' : 'resume a paused run')
    .action(
      cliAction(async (name: string) => {
        const client = await connectClient();
        await requireRunning(client, name);
        await client.workflow.getHandle(loopWorkflowId(name)).signal(pauseSignal, paused);
        console.log(`${name}: ${paused ? 'pausing at the next stage boundary' : 'resumed'}`);
      }),
    );

program
  .command('stop <name>')
  .description('stop a run: cancels the running stage (killing trainers/servers) and cleans up')
  .option('--no-wait', 'do not wait for the run to close')
  .action(
    cliAction(async (name: string, o: { wait: boolean }) => {
      const client = await connectClient();
      await requireRunning(client, name);
      const handle = client.workflow.getHandle(loopWorkflowId(name));
      await handle.signal(stopSignal, 'requested from the CLI');
      // A stopped loop completes; any other ending is fine too. Only an unreachable server is worth waiting out.
      if (o.wait)
        await withServerRetry(
          () =>
            handle.result().catch((err) => {
              if (isTransientServerError(err)) throw err;
            }),
          {
            what: `waiting for ${name} to stop`,
            giveUpAfterMs: serverRetryMs('wait'),
          },
        );
      console.log(`${name}: stopped`);
    }),
  );

program
  .command('retry <name>')
  .description('re-run the stage that needs attention (or an earlier one), optionally with changed config')
  .addOption(new Option('--stage <stage>', 'stage to re-run from').choices([...STAGES]))
  .option('--set <key=value>', 'override a config field for the retry (repeatable)', collect, [])
  .action(
    cliAction(async (name: string, o: { stage?: Stage; set: string[] }) => {
      const client = await connectClientRetrying('status');
      const s = await getRunStatusRetrying(client, name);
      if (s.workflowStatus !== 'RUNNING' || !s.iteration?.attention)
        throw new UserError(
          `run "${name}" has no stage that needs attention (status: ${s.workflowStatus.toLowerCase()}${s.iteration ? `, stage ${s.iteration.stage}` : ''})`,
        );
      const child = client.workflow.getHandle(iterationWorkflowId(name, s.loop.iteration));
      const trainedFrom = trainedCheckpoint(s.loop.done);
      const config = o.set.length ? applyOverridesToConfig(await child.query(iterationConfigQuery), o.set, { trainedFrom }) : undefined;
      try {
        const msg = await child.executeUpdate(retryStageUpdate, {
          args: [{ stage: o.stage, config, ...(config ? { changes: o.set } : {}) }],
        });
        console.log(`${name}: ${msg}`);
      } catch (err) {
        throw new UserError(
          `retry rejected: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
        );
      }
    }),
  );

program
  .command('report <name>')
  .description('metrics per iteration and the lineage as tables; with --html, one self-contained page to look at the data')
  .option('--html [file]', 'also write the HTML report (default file: <name>-report.html)')
  .option('--samples <n>', 'conversations shown per iteration in the HTML report', '12')
  .action(
    cliAction(async (name: string, o: { html?: string | true; samples: string }) => {
      const client = await connectClientRetrying('status');
      const s = await getRunStatusRetrying(client, name);
      const samples = Number(o.samples);
      if (o.html && (!Number.isInteger(samples) || samples < 0))
        throw new UserError(`--samples: "${o.samples}" is not a number of conversations`);
      const config = await withServerRetry(() => runConfig(client, name), {
        what: `reading run ${name}`,
        giveUpAfterMs: serverRetryMs('status'),
      });
      console.log(metricsTable(s.loop.done));
      if (config?.paper) {
        const { paperFiguresText } = await import('../activities/report/paper-figures');
        console.log(`\n${paperFiguresText(config.paper, s.loop.done)}`);
      }
      // The probe's answers are read from where the run stores its artifacts (its config says where).
      const probes = config ? await probeAnswersByIteration(s.loop.done, storeFor(config)) : undefined;
      if (s.loop.done.length) console.log(`\nlineage:\n${lineageLines(s.loop.done, probes)}`);
      if (!o.html) return;
      const file = o.html === true ? `${name}-report.html` : o.html;
      const { reportHtml } = await import('../activities/report/report-html');
      const { recipeRuntime } = await import('../activities/recipes/runtime');
      const recipe = config ? { config, recipe: () => recipeRuntime(config) } : {};
      writeFileSync(file, await reportHtml(name, s.loop.done, { ...recipe, samplesPerIteration: samples }));
      console.log(`\nHTML report: ${path.resolve(file)}`);
    }),
  );

program
  .command('eval <config>')
  .description('one evaluation pass, no training (CoRal `validate`); runs its own workers')
  .option('--name <name>', 'run name (refused when used; default: <file>-eval, or the next free <file>-eval-2, …)')
  .option('--set <key=value>', 'override a config field (repeatable)', collect, [])
  .action(
    cliAction(async (file: string, o: { name?: string; set: string[] }) => {
      const { runEval } = await import('./one-shot');
      await runEval(
        await loadRunConfig(file, {
          overrides: o.set,
          name: o.name ?? `${file.replace(/^.*\//, '').replace(/\.ya?ml$/, '')}-eval`,
          evalOnly: true,
        }),
        { freshName: !o.name },
      );
    }),
  );

program
  .command('demo <config>')
  .description('start (or reuse) the dev server, run the loop with in-process workers, print metrics')
  .option('--name <name>', 'run name (refused when used; default: the config name, or the next free <name>-2, …)')
  .option('--set <key=value>', 'override a config field (repeatable)', collect, [])
  .option('--stop-server', 'stop the dev server at the end if the demo started it')
  .action(
    cliAction(async (file: string, o: { name?: string; set: string[]; stopServer?: boolean }) => {
      const { runDemo } = await import('./one-shot');
      await runDemo(await loadRunConfig(file, { overrides: o.set, name: o.name }), { stopServer: !!o.stopServer, freshName: !o.name });
    }),
  );

program
  .command('score')
  .description("score records with a recipe's evaluator: one JSON line per input record")
  .requiredOption('--recipe <recipe>', SCORE_HELP.recipe)
  .option('--dataset <dataset>', SCORE_HELP.dataset)
  .requiredOption('--input <file>', 'records.jsonl (colbench-code: trajectories with `task` and `answer`)')
  .option('--tasks <file>', 'colbench-code: task file for records that carry only a task id')
  .addOption(new Option('--compat <mode>', "fixed (default) or the seed's behaviour").choices(['fixed', 'seed']).default('fixed'))
  .action(
    cliAction(async (o: ScoreOptions) => {
      for (const line of await scoreFile(o)) console.log(line);
    }),
  );

await program.parseAsync(process.argv);
// Temporal's native runtime and a detached dev server's pipes can keep the event loop alive after a one-shot
// command has finished; the command's work is done, so leave.
process.exit(process.exitCode ?? 0);
