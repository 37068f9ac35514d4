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
import { reportHtml } from '../activities/report/report-html';
import { paperFiguresText } from '../activities/report/paper-figures';
import { probeAnswersByIteration } from '../activities/report/probe-text';
import { storeFor } from '../activities/artifacts/store';
import { recipeRuntime } from '../activities/recipes/runtime';
import { CHECKPOINT_CACHE_GB_ENV, SERVE_HOST_ENV, STATE_DIR_ENV } from '../activities/host-env';
import { runDemo, runEval } from './one-shot';
import { SCORE_HELP, scoreFile, type ScoreOptions } from './score';
import { connectClientRetrying, isTransientServerError, serverRetryMs, withServerRetry } from './server-retry';

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

program
  .command('worker')
  .description('run workers for the given task-queue classes (default: all)')
  .option('--queues <list>', 'comma-separated: workflows,llm,cpu,gpu,sandbox')
  .option('--gpu-slots <n>', 'trainers and server starts the gpu worker runs at once (e.g. one per GPU)', '4')
  .option(
    '--server-outage-tolerance <seconds>',
    'how long a finished stage holds its result for a Temporal server it cannot reach (a restart) before reporting it anyway',
    '600',
  )
  .option('--metrics-port <n>', 'serve Prometheus metrics (SDK worker metrics + collab_loop_*) on this port at /metrics', port)
  .option(
    '--serve-host <name>',
    'gpu hosts: the name other hosts reach the model servers this worker starts by (they then listen on all interfaces)',
  )
  .option(
    '--keep-servers',
    'on exit, leave the model servers this worker started running for the workers that take over (restarting with a new build mid-iteration); otherwise they stop with it',
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
        gpuSlots: string;
        serverOutageTolerance: string;
        metricsPort?: number;
        stateDir?: string;
        checkpointCacheGb: string;
        serveHost?: string;
        keepServers?: boolean;
      }) => {
        const cacheGb = Number(o.checkpointCacheGb);
        if (!(cacheGb >= 0) || o.checkpointCacheGb.trim() === '')
          throw new UserError(`--checkpoint-cache-gb: "${o.checkpointCacheGb}" is not a number of GB (e.g. 100, or 0.5)`);
        process.env[CHECKPOINT_CACHE_GB_ENV] = String(cacheGb);
        // Read by every stage this process runs (activities/storage/run-storage.ts, serving/server-launch.ts).
        if (o.stateDir) process.env[STATE_DIR_ENV] = path.resolve(o.stateDir);
        if (o.serveHost) process.env[SERVE_HOST_ENV] = o.serveHost;
        const { NativeConnection } = await import('@temporalio/worker');
        const { ALL_QUEUES, createWorkers, runWorkers } = await import('../workers/run-worker');
        const { installWorkerLogging } = await import('../workers/logging');
        try {
          installWorkerLogging(o.logLevel.toUpperCase() as 'WARN', o.metricsPort);
        } catch (err) {
          throw new UserError(`--metrics-port ${o.metricsPort}: ${err instanceof Error ? err.message : String(err)}`);
        }
        const queues = o.queues ? o.queues.split(',').map((q) => q.trim()) : ALL_QUEUES;
        const bad = queues.filter((q) => !(ALL_QUEUES as string[]).includes(q));
        if (bad.length) throw new UserError(`--queues: unknown queue class ${bad.join(', ')} (known: ${ALL_QUEUES.join(', ')})`);
        const gpuSlots = Number(o.gpuSlots);
        if (!Number.isInteger(gpuSlots) || gpuSlots < 1) throw new UserError(`--gpu-slots: "${o.gpuSlots}" is not a positive whole number`);
        const serverOutageToleranceSeconds = Number(o.serverOutageTolerance);
        if (!Number.isInteger(serverOutageToleranceSeconds) || serverOutageToleranceSeconds < 0)
          throw new UserError(`--server-outage-tolerance: "${o.serverOutageTolerance}" is not a whole number of seconds`);
        const target = temporalTarget();
        const connection = await NativeConnection.connect(target.connection);
        const { namespace } = target;
        const workers = await createWorkers({
          connection,
          namespace,
          queues: queues as typeof ALL_QUEUES,
          gpuSlots,
          serverOutageToleranceSeconds,
        });
        const inNamespace = namespace === DEFAULT_NAMESPACE ? '' : ` in namespace ${namespace}`;
        const metricsAt = o.metricsPort ? `, metrics on :${o.metricsPort}/metrics` : '';
        console.log(`collab-loop worker polling ${queues.join(', ')} on ${target.address}${inNamespace} (pid ${process.pid})${metricsAt}`);
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
      if (config?.paper) console.log(`\n${paperFiguresText(config.paper, s.loop.done)}`);
      // The probe's answers are read from where the run stores its artifacts (its config says where).
      const probes = config ? await probeAnswersByIteration(s.loop.done, storeFor(config)) : undefined;
      if (s.loop.done.length) console.log(`\nlineage:\n${lineageLines(s.loop.done, probes)}`);
      if (!o.html) return;
      const file = o.html === true ? `${name}-report.html` : o.html;
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
