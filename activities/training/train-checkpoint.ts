// The train stage's work (activities/stages/train-checkpoint.ts resolves the recipe for it): turns the iteration's
// dataset into the next checkpoint with the configured trainer.
//   trl | fairseq2 | openrlhf | verl — an adapter (./adapters) plans the subprocess steps (prepare → train →
//       export to a Hugging Face directory), parses progress, and finds the last COMPLETE checkpoint in the
//       trainer's work dir, which is stable across attempts: a retry after a killed worker resumes from it.
//   command — any trainer from a template; a retry gets the last announced checkpoint as {resume_from}.
// With an object store, each new complete checkpoint is published beside the trainer (./published-steps.ts), and an
// attempt on any host resumes from the newest published step when its own disk has nothing as new: fetched into the
// work dir (adapters) or a local directory handed as {resume_from} (command) — never a path on another host's disk.
// Progress (step, loss, last checkpoint) rides in heartbeat details; cancellation kills each step's process group;
// the new checkpoint carries its lineage (dataset sha256, base, argv, trainer version, final loss).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { execa } from 'execa';
import {
  appendFileSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { RoleDatasets, TrainResult } from '../../contracts/run';
import { DATASET_OF } from '../../contracts/train-methods';
import type { StageContext } from '../../contracts/activities';
import type { TrainerConfig } from '../../contracts/config';
import type { ArtifactRef } from '../../contracts/artifact-ref';
import { writeFileAtomic } from '../artifacts/store';
import { previousHeartbeat, startHeartbeat } from '../heartbeat';
import { writeStageManifest } from '../manifest';
import { localCheckpoint, publishCheckpoint, publishedFile } from '../storage/checkpoints';
import { localStateDir } from '../storage/run-storage';
import { storeFor } from '../artifacts/store';
import { CHECKPOINT_MANIFEST } from '../serving/checkpoint-identity';
import { SIMULATED_POLICY_FILE } from '../serving/checkpoint-servers';
import { trainedSimulatedPolicy, type SimulatedPolicyFile } from '../serving/simulated-skill';
import { PROJECT_ROOT } from '../subprocess/node-script';
import { reapPidFile } from '../subprocess/process-group';
import { reapOrphans } from '../subprocess/process-registry';
import { renderCommand, TemplateError } from '../subprocess/template';
import { planTraining, TRAINER_ADAPTERS, unsupportedMethod } from './adapters';
import type { ResumePoint, TrainJob, TrainStep } from './adapters/types';
import { startOnlineReward } from './online-reward';
import { forgetTrainerFinished, recordTrainerFinished, type TrainerFinished, trainerFinishedBefore } from './trainer-finished';
import { fetchNewerStep, PUBLISH_POLL_MS, type SavedStep, startStepPublisher } from './published-steps';
import { lossCurveFromLog } from './loss-curve';
import { runTrainerStep } from './run-step';
import { venvExecutable } from '../subprocess/venv';
import { count } from '../metrics';
import { modelRoles, primaryRole, type DeclaredRoles } from '../llm/roles';
import type { LoopRecipe } from '../recipes/types';

export interface TrainProgress {
  step?: number;
  loss?: number;
  /** Last checkpoint the trainer announced (or the one this attempt resumed from), on this host's disk. */
  checkpoint?: string;
  /** The step it was saved at. */
  checkpointStep?: number;
  /** The newest step published to the run's object store (./published-steps.ts): what a retry on any host resumes from. */
  published?: { step: number; uri: string };
  resumedFromStep?: number;
  attempt: number;
  /** The model role it trains (iterations that train several). */
  role?: string;
}

const DEFAULT_PROGRESS = /\bstep[\s=:]+(?<step>\d+)\b.*?\bloss[\s=:]+(?<loss>-?[0-9.]+(?:e[-+]?\d+)?)/i;
const DEFAULT_CHECKPOINT = /\bsaved checkpoint[\s:=]+(?<path>\S+)/i;

/** For `command` trainers: regexes with named groups step/loss and path. */
export function parseTrainerLine(line: string, progress: RegExp, checkpoint: RegExp): Partial<TrainProgress> {
  const out: Partial<TrainProgress> = {};
  const p = progress.exec(line);
  if (p?.groups?.step !== undefined) out.step = Number(p.groups.step);
  if (p?.groups?.loss !== undefined && Number.isFinite(Number(p.groups.loss))) out.loss = Number(p.groups.loss);
  const c = checkpoint.exec(line);
  if (c?.groups?.path) out.checkpoint = c.groups.path;
  return out;
}

const tail = (file: string, lines = 20) =>
  existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
const defaultPython = () => venvExecutable('python');

interface Planned {
  steps: TrainStep[];
  parse: (line: string) => Partial<TrainProgress>;
  versionArgv?: string[];
  resumedFromStep?: number;
  resumeFrom?: string;
}

function planCommand(
  t: Extract<TrainerConfig, { kind: 'command' }>,
  values: Record<string, string | number>,
  resume?: ResumePoint,
): Planned {
  let argv: string[];
  try {
    argv = renderCommand(t.command, { ...values, resume_from: resume?.path ?? '' });
  } catch (err) {
    if (err instanceof TemplateError) throw ApplicationFailure.nonRetryable(`trainer.command: ${err.message}`, 'ConfigError');
    throw err;
  }
  const progressRe = t.progressPattern ? new RegExp(t.progressPattern) : DEFAULT_PROGRESS;
  const checkpointRe = t.checkpointPattern ? new RegExp(t.checkpointPattern) : DEFAULT_CHECKPOINT;
  return {
    steps: [{ name: 'train', argv, env: t.env }],
    parse: (l) => parseTrainerLine(l, progressRe, checkpointRe),
    resumedFromStep: resume?.step,
    resumeFrom: resume?.path,
  };
}

function planAdapter(t: Exclude<TrainerConfig, { kind: 'command' }>, job: TrainJob, resume?: ResumePoint): Planned {
  const adapter = TRAINER_ADAPTERS[t.kind];
  const steps = planTraining(t.kind, job, t, resume).map((s) => ({ ...s, env: withUserEnv(s.env, t.env) }));
  return {
    steps,
    parse: (l) => adapter.parseLine(l),
    versionArgv: adapter.versionCommand(job),
    resumedFromStep: resume?.step,
    resumeFrom: resume?.path,
  };
}

/** trainer.env over the plan's environment; a PYTHONPATH in both keeps the plan's entries (its plug-ins) first. */
function withUserEnv(plan: Record<string, string> = {}, user: Record<string, string>): Record<string, string> {
  const env = { ...plan, ...user };
  if (plan.PYTHONPATH && user.PYTHONPATH) env.PYTHONPATH = [plan.PYTHONPATH, user.PYTHONPATH].join(path.delimiter);
  return env;
}

async function trainerVersion(argv: string[] | undefined): Promise<string> {
  if (!argv) return 'unknown (command trainer)';
  const r = await execa(argv[0], argv.slice(1), { reject: false, timeout: 120_000, cwd: PROJECT_ROOT });
  return r.exitCode === 0
    ? (String(r.stdout).trim().split('\n').pop() ?? '')
    : `unknown (${String(r.stderr || r.shortMessage)
        .trim()
        .split('\n')
        .pop()})`;
}

/** Where one training job works and writes: per iteration, and per role when an iteration trains several. */
export function trainPaths(stateDir: string, runName: string, iteration: number, role?: string) {
  const sub = (...p: string[]) => path.join(...p, ...(role ? [role] : []));
  const suffix = role ? `-${role}` : '';
  return {
    root: sub(stateDir, 'train', runName, `iter-${iteration}`),
    output: sub(stateDir, 'checkpoints', runName, `iter-${iteration + 1}`),
    logFile: path.join(stateDir, 'logs', runName, `train-iter-${iteration}${suffix}.log`),
    pidFile: path.join(stateDir, 'trainers', runName, `iter-${iteration}${suffix}.json`),
  };
}

export type TrainInput = StageContext & { checkpoint: string; data: RoleDatasets; role?: string };

/** `recipe`: the config's recipe (its roles; with trainer.method grpo, its online-RL reward service). */
export async function trainNextCheckpoint(input: TrainInput, recipe: LoopRecipe): Promise<TrainResult> {
  const t = input.config.trainer;
  if (!t) throw ApplicationFailure.nonRetryable('no trainer section in the config', 'ConfigError');
  const stateDir = localStateDir(input.config);
  const { root, output, logFile, pidFile } = trainPaths(stateDir, input.runName, input.iteration, input.role);
  const done = path.join(output, CHECKPOINT_MANIFEST);
  const lineageAt = (): Lineage => JSON.parse(readFileSync(done, 'utf8'));
  const finished = async () => resultOf(lineageAt(), await publishCheckpoint(input.config, output, checkpointName(input)));
  for (const d of [root, path.dirname(output), path.dirname(logFile)]) mkdirSync(d, { recursive: true });
  // A trainer orphaned by a killed worker must not keep writing checkpoints beside (or under) this attempt, nor
  // hold the GPU it needs (nor may anything else a dead worker left on this host).
  await reapOrphans(stateDir);
  await reapPidFile(pidFile);

  const primary = input.data[DATASET_OF[t.method]];
  if (!primary) throw ApplicationFailure.nonRetryable(`no ${t.method} dataset was built`, 'EmptyDataset');
  const trainedOnThis = (l?: Lineage) => l?.dataset?.sha256 === primary.sha256;
  // A finished attempt whose activity result was lost (worker killed after training): the checkpoint is complete.
  if (existsSync(done) && trainedOnThis(lineageAt())) return finished();
  // … or on another host, which published it before its result was lost.
  const elsewhere = await publishedFile(input.config, checkpointName(input), CHECKPOINT_MANIFEST);
  const lineage: Lineage | undefined = elsewhere && JSON.parse(elsewhere.bytes.toString('utf8'));
  if (trainedOnThis(lineage)) return resultOf(lineage!, elsewhere!.uri);
  if (t.kind !== 'command') {
    const unsupported = unsupportedMethod(t.kind, t.method);
    if (unsupported) throw ApplicationFailure.nonRetryable(`trainer.method: ${unsupported}`, 'ConfigError');
  }
  // The trainer finished here but the stage failed after it: record that output instead of training again.
  const finishedBefore = trainerFinishedBefore<TrainProgress>(root, output, primary.sha256, t);
  if (!finishedBefore) rmSync(output, { recursive: true, force: true }); // half-finished output of a killed attempt

  const dataDir = path.join(root, 'data');
  mkdirSync(dataDir, { recursive: true });
  const dataFile = path.join(dataDir, 'train.jsonl');
  const store = storeFor(input.config);
  copyFileSync(await store.localPath(primary), dataFile);
  // The base may be a checkpoint another host published: trainers read directories.
  const base = await localCheckpoint(input.config, input.checkpoint);
  const job: TrainJob = {
    method: t.method,
    base: path.resolve(base),
    dataDir: path.resolve(dataDir),
    dataFile: path.resolve(dataFile),
    workDir: path.resolve(root, 'work'),
    hfOutput: path.resolve(output),
    python: t.python ?? defaultPython(),
    seed: input.config.seed + input.iteration,
  };
  mkdirSync(job.workDir, { recursive: true });
  // Online RL: the recipe's reward service runs for as long as the trainer does (the plan names its address).
  const reward = t.method === 'grpo' ? await startOnlineReward(input, recipe, (l) => appendFileSync(logFile, `${l}\n`)) : undefined;
  try {
    if (reward) job.onlineRl = { rewardUrl: reward.url, ...reward.rollout };
    await trainWith(input, t, job, {
      root,
      output,
      done,
      logFile,
      pidFile,
      primary,
      roles: recipe.roles(input.config.recipe),
      finishedBefore,
    });
  } finally {
    await reward?.close();
  }
  return finished();
}

/** What collab-loop-checkpoint.json records beside the weights (written at the end of trainWith). */
interface Lineage {
  dataset?: { sha256: string };
  stageManifest: TrainResult['manifest'];
  finalLoss?: number | null;
  steps?: number | null;
  resumedFromStep?: number | null;
  lossCurve?: TrainResult['lossCurve'] | null;
}

/** The result of a finished training job, from the lineage it wrote beside the weights. */
function resultOf(lineage: Lineage, checkpoint: string): TrainResult {
  return {
    checkpoint,
    manifest: lineage.stageManifest,
    finalLoss: lineage.finalLoss ?? undefined,
    steps: lineage.steps ?? undefined,
    resumedFromStep: lineage.resumedFromStep ?? undefined,
    lossCurve: lineage.lossCurve ?? undefined,
  };
}

/** Where a role's next checkpoint is published: the same names as the local layout (checkpoints/<run>/iter-<k+1>). */
const checkpointName = (input: TrainInput) => [input.runName, `iter-${input.iteration + 1}`, ...(input.role ? [input.role] : [])].join('/');

interface TrainPaths {
  root: string;
  output: string;
  done: string;
  logFile: string;
  pidFile: string;
  primary: ArtifactRef;
  roles: DeclaredRoles;
  /** The trainer already finished in an earlier attempt on this host (trainer-finished.json). */
  finishedBefore?: TrainerFinished<TrainProgress>;
}

async function trainWith(input: TrainInput, t: TrainerConfig, job: TrainJob, paths: TrainPaths): Promise<void> {
  const { root, output, done, logFile, pidFile, primary, roles, finishedBefore } = paths;
  const ctx = Context.current();
  const store = storeFor(input.config);
  const dataDir = job.dataDir;
  const prev = previousHeartbeat<TrainProgress>();
  const resume = finishedBefore ? finishedBefore.resume : await resumePoint(input, t, job, root, primary.sha256);
  const planned =
    t.kind === 'command'
      ? planCommand(
          t,
          {
            checkpoint: job.base,
            output,
            data: await store.localPath(primary),
            data_dir: dataDir,
            sft_data: input.data.sft ? await store.localPath(input.data.sft) : '',
            dpo_data: input.data.dpo ? await store.localPath(input.data.dpo) : '',
            work_dir: job.workDir,
            iteration: input.iteration,
            run: input.runName,
            project: PROJECT_ROOT,
            method: t.method,
            python: job.python,
            role: input.role ?? '',
          },
          resume,
        )
      : planAdapter(t, job, resume);

  const progress: TrainProgress = finishedBefore?.progress ?? {
    attempt: ctx.info.attempt,
    ...(input.role ? { role: input.role } : {}),
    checkpoint: planned.resumeFrom ?? prev?.checkpoint,
    checkpointStep: planned.resumedFromStep ?? (planned.resumeFrom ? undefined : prev?.checkpointStep),
    resumedFromStep: planned.resumedFromStep,
    published: prev?.published,
  };
  if (!finishedBefore) {
    forgetTrainerFinished(root);
    await runTrainer(input, t, job, { planned, progress, logFile, pidFile, roles, dataset: primary.sha256, root });
    if (!existsSync(output))
      throw ApplicationFailure.create({
        message: `trainer finished but wrote no checkpoint at ${output}${t.kind === 'command' ? ' (does trainer.command use {output}?)' : ''}. Last lines of ${logFile}:\n${tail(logFile)}`,
        type: 'TrainerFailed',
      });
    recordTrainerFinished(root, t, { dataset: primary.sha256, progress, resume });
  }

  // SIMULATION (only with `agents:`): the simulated agents of the next iteration get the skill this data buys.
  if (input.config.agents) {
    const own = path.join(job.base, SIMULATED_POLICY_FILE);
    const base: SimulatedPolicyFile = existsSync(own)
      ? JSON.parse(readFileSync(own, 'utf8'))
      : { skill: input.config.agents.skill, agreeability: input.config.agents.agreeability };
    writeFileSync(path.join(output, SIMULATED_POLICY_FILE), JSON.stringify(trainedSimulatedPolicy(base, primary.rows), null, 2));
  }

  const argv = planned.steps.map((s) => s.argv);
  const version = await trainerVersion(planned.versionArgv);
  const curve = lossCurveFromLog(logFile, planned.parse);
  const lossCurve = curve.length ? await store.putJsonl(curve) : undefined;
  const manifest = await writeStageManifest(input.config, {
    run: input.runName,
    iteration: input.iteration,
    stage: 'train',
    ...(input.role ? { role: input.role } : {}),
    inputs: { checkpoint: input.checkpoint, data: primary },
    params: { trainer: t, argv, version },
    outputs: {
      checkpoint: output,
      finalLoss: progress.loss ?? null,
      steps: progress.step ?? null,
      resumedFromStep: progress.resumedFromStep ?? null,
      lossCurve: lossCurve ?? null,
    },
  });
  // Lineage travels with the weights: which data, which base, which commands and trainer version made them.
  const lineage = {
    run: input.runName,
    iteration: input.iteration,
    ...(input.role ? { role: input.role } : {}),
    baseCheckpoint: input.checkpoint,
    method: t.method,
    trainer: t.kind,
    version,
    dataset: { sha256: primary.sha256, rows: primary.rows, uri: primary.uri },
    argv,
    finalLoss: progress.loss ?? null,
    steps: progress.step ?? null,
    resumedFromStep: progress.resumedFromStep ?? null,
    lossCurve: lossCurve ?? null,
    stageManifest: manifest,
  };
  writeFileAtomic(done, JSON.stringify(lineage, null, 2));
}

/** Where this attempt resumes: this host's newest checkpoint, or the newest step published to the run's store when
 *  that one is newer (always, on a host that has none), fetched where the trainer expects it. */
async function resumePoint(
  input: TrainInput,
  t: TrainerConfig,
  job: TrainJob,
  root: string,
  dataset: string,
): Promise<ResumePoint | undefined> {
  const name = checkpointName(input);
  if (t.kind === 'command') {
    // A path an earlier attempt announced is a resume point only on the host that saved it; this host's own record
    // of it may be newer than the last heartbeat the server got before the worker died.
    const prev = previousHeartbeat<TrainProgress>();
    const local = [prev?.checkpoint ? { path: prev.checkpoint, step: prev.checkpointStep ?? 0 } : undefined, lastAnnounced(root, dataset)]
      .filter((c): c is ResumePoint => !!c && existsSync(c.path))
      .sort((a, b) => b.step - a.step)[0];
    return (await fetchNewerStep(input.config, name, dataset, local?.step, path.join(root, 'resumed'))) ?? local;
  }
  const adapter = TRAINER_ADAPTERS[t.kind];
  const local = adapter.findResumePoint(job.workDir);
  const fetched = await fetchNewerStep(input.config, name, dataset, local?.step, job.workDir);
  return fetched ? adapter.findResumePoint(job.workDir) : local;
}

/** Runs the planned steps, heartbeating progress, while each new complete checkpoint is published beside them. */
async function runTrainer(
  input: TrainInput,
  t: TrainerConfig,
  job: TrainJob,
  {
    planned,
    progress,
    logFile,
    pidFile,
    roles,
    dataset,
    root,
  }: {
    planned: Planned;
    progress: TrainProgress;
    logFile: string;
    pidFile: string;
    roles: DeclaredRoles;
    dataset: string;
    root: string;
  },
): Promise<void> {
  const ctx = Context.current();
  const hb = startHeartbeat(progress);
  const trainedRole = input.role ?? primaryRole(modelRoles(input.config, roles, input.checkpoint)) ?? '';
  const log = createWriteStream(logFile, { flags: 'a' });
  let failed: string | undefined;
  let badInput = false;
  if (planned.resumeFrom) log.write(`\n--- attempt ${ctx.info.attempt} resumes from ${planned.resumeFrom}\n`);
  const publisher = startStepPublisher(input.config, checkpointName(input), dataset, {
    after: progress.published?.step,
    log: (l) => log.write(`--- ${l}\n`),
    onPublished: (p) => {
      progress.published = { step: p.step, uri: p.uri };
      hb.update({ ...progress });
    },
  });
  let announced: SavedStep | undefined;
  const newestSaved = (): SavedStep | undefined => {
    if (t.kind === 'command') return announced;
    const r = TRAINER_ADAPTERS[t.kind].findResumePoint(job.workDir);
    return r && { dir: r.path, step: r.step, rel: path.relative(job.workDir, r.path) };
  };
  const poll = setInterval(() => publisher.offer(newestSaved()), PUBLISH_POLL_MS);
  let settled = false;
  try {
    for (const step of planned.steps) {
      for (const [file, text] of Object.entries(step.files ?? {})) writeFileAtomic(file, text);
      const r = await runTrainerStep({
        name: step.name,
        argv: step.argv,
        env: step.env,
        log,
        pidFile,
        stateDir: localStateDir(input.config),
        onLine: (line) => {
          const parsed = planned.parse(line);
          if (Object.keys(parsed).length) {
            // Steps this attempt advanced (a resumed trainer restarts its count at the resume point, not at 0).
            const from = progress.step ?? progress.resumedFromStep ?? 0;
            if (parsed.step !== undefined) count('trainerSteps', parsed.step - from, { role: trainedRole });
            Object.assign(progress, parsed);
            if (parsed.checkpoint) {
              progress.checkpointStep = progress.step;
              recordAnnounced(root, { path: path.resolve(PROJECT_ROOT, parsed.checkpoint), step: progress.step ?? 0 }, dataset);
              announced = savedDir(parsed.checkpoint, progress.step ?? 0);
              publisher.offer(newestSaved());
            }
            hb.update({ ...progress });
          }
        },
      });
      if (r.notFound)
        throw ApplicationFailure.nonRetryable(
          `trainer (${t.kind}): executable "${step.argv[0]}" not found — is the trainer installed here (trainer.python / trainer.launcher)?`,
          'TrainerConfigError',
        );
      if (r.exitCode !== 0) {
        failed = `trainer ${step.name} step exited with ${r.exitCode ?? r.signal} (attempt ${ctx.info.attempt})`;
        badInput = r.exitCode === step.badInputExitCode;
        break;
      }
    }
    settled = true;
  } finally {
    clearInterval(poll);
    // The newest step goes to the store before a failed attempt ends (its retry may run on another host); a
    // cancelled one does not wait for it.
    if (settled) {
      publisher.offer(newestSaved());
      await publisher.close();
    }
    hb.stop();
    await new Promise((r) => log.end(r));
  }
  // Read the log's tail only once the stream is closed: its last lines (often the error) may still be buffered.
  // Bad input (rows, options) fails the same way on every attempt: stop at once, with the trainer's own words.
  if (failed)
    throw ApplicationFailure.create({
      message: `${failed}. Last lines of ${logFile}:\n${tail(logFile)}`,
      type: badInput ? 'TrainerConfigError' : 'TrainerFailed',
      nonRetryable: badInput,
    });
}

/** The last checkpoint a `command` trainer announced on this host, written as it is announced: a worker SIGKILLed
 *  right after may not have sent the heartbeat that carried it. */
const announcedFile = (root: string) => path.join(root, 'announced-checkpoint.json');

function recordAnnounced(root: string, at: ResumePoint, dataset: string): void {
  writeFileAtomic(announcedFile(root), JSON.stringify({ ...at, dataset }));
}

function lastAnnounced(root: string, dataset: string): ResumePoint | undefined {
  if (!existsSync(announcedFile(root))) return undefined;
  const a = JSON.parse(readFileSync(announcedFile(root), 'utf8')) as ResumePoint & { dataset: string };
  return a.dataset === dataset ? { path: a.path, step: a.step } : undefined;
}

/** A checkpoint a `command` trainer announced (relative paths are from its working directory, PROJECT_ROOT), when it
 *  is a directory: a single-file checkpoint is not published (the finished output still is). */
function savedDir(announced: string, step: number): SavedStep | undefined {
  const dir = path.resolve(PROJECT_ROOT, announced);
  return existsSync(dir) && statSync(dir).isDirectory() ? { dir, step, rel: path.basename(dir) } : undefined;
}
