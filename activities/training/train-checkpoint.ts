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
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TrainResult } from '../../contracts/run';
import { DATASET_OF, isOnlineMethod } from '../../contracts/train-methods';
import type { TrainerConfig } from '../../contracts/config';
import type { ArtifactRef } from '../../contracts/artifact-ref';
import { writeFileAtomic } from '../artifacts/store';
import { previousHeartbeat } from '../heartbeat';
import { writeStageManifest } from '../manifest';
import { leaseEntry } from '../storage/checkpoint-cache';
import { localCheckpoint, publishCheckpoint, publishedFile } from '../storage/checkpoints';
import { localStateDir } from '../storage/run-storage';
import { weightDigests } from '../storage/content-hash';
import { storeFor } from '../artifacts/store';
import { CHECKPOINT_MANIFEST } from '../serving/checkpoint-identity';
import { SIMULATED_POLICY_FILE } from '../serving/checkpoint-servers';
import { trainedSimulatedPolicy, type SimulatedPolicyFile } from '../serving/simulated-skill';
import { PROJECT_ROOT } from '../subprocess/node-script';
import { reapPidFile } from '../subprocess/process-group';
import { reapOrphans } from '../subprocess/process-registry';
import { unsupportedMethod } from './adapters';
import type { TrainJob } from './adapters/types';
import { startOnlineReward } from './online-reward';
import { forgetTrainerFinished, recordTrainerFinished, type TrainerFinished, trainerFinishedBefore } from './trainer-finished';
import { lossCurveFromLog } from './loss-curve';
import { resumePoint } from './resume-point';
import { logTail } from '../subprocess/log-tail';
import { runTrainer } from './run-trainer';
import { checkpointName, trainPaths, type TrainInput } from './train-input';
import { defaultPython, planAdapter, planCommand, trainerVersion } from './train-plan';
import type { TrainProgress } from './train-progress';
import type { DeclaredRoles } from '../llm/roles';
import type { LoopRecipe } from '../recipes/types';

/** `recipe`: the config's recipe (its roles; with an online trainer.method (grpo, ppo, online_dpo), its online-RL reward service). */
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
  // A fetched base stays in this host's checkpoint cache while the trainer may read it.
  const release = base !== input.checkpoint ? await leaseEntry(base) : undefined;
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
  const reward = isOnlineMethod(t.method) ? await startOnlineReward(input, recipe, (l) => appendFileSync(logFile, `${l}\n`)) : undefined;
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
    await release?.();
  }
  return finished();
}

/** What collab-loop-checkpoint.json records beside the weights (written at the end of trainWith). */
interface Lineage {
  dataset?: { sha256: string };
  /** sha256 of each weight file of the new checkpoint (content-hash.ts weightDigests). */
  weights?: Record<string, string>;
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
        message: `trainer finished but wrote no checkpoint at ${output}${t.kind === 'command' ? ' (does trainer.command use {output}?)' : ''}. Last lines of ${logFile}:\n${logTail(logFile)}`,
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
  // What the next iteration serves, by content: a trainer that wrote the base back unchanged shows as such.
  const weights = await weightDigests(output);
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
      weights,
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
    weights,
    argv,
    finalLoss: progress.loss ?? null,
    steps: progress.step ?? null,
    resumedFromStep: progress.resumedFromStep ?? null,
    lossCurve: lossCurve ?? null,
    stageManifest: manifest,
  };
  writeFileAtomic(done, JSON.stringify(lineage, null, 2));
}
