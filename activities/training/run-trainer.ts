// Runs a planned training job's steps as subprocesses, heartbeating progress, while each new complete checkpoint is
// published beside them (./published-steps.ts); a failed step fails the attempt with the last lines of its log.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import type { TrainerConfig } from '../../contracts/config';
import type { DetailsWithWork, WorkProgress } from '../../contracts/progress';
import { writeFileAtomic } from '../artifacts/store';
import { startHeartbeat } from '../heartbeat';
import { progressMeter } from '../progress/meter';
import { reportProgress } from '../progress/report';
import { modelRoles, primaryRole, type DeclaredRoles } from '../llm/roles';
import { count } from '../metrics';
import { localStateDir } from '../storage/run-storage';
import { logTail } from '../subprocess/log-tail';
import { PROJECT_ROOT } from '../subprocess/node-script';
import { TRAINER_ADAPTERS } from './adapters';
import type { TrainJob } from './adapters/types';
import { PUBLISH_POLL_MS, type SavedStep, startStepPublisher } from './published-steps';
import { recordAnnounced, savedDir } from './resume-point';
import { runTrainerStep } from './run-step';
import { checkpointName, type TrainInput } from './train-input';
import type { Planned } from './train-plan';
import type { TrainProgress } from './train-progress';

/** Runs the planned steps, heartbeating progress, while each new complete checkpoint is published beside them. */
export async function runTrainer(
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
  const hb = startHeartbeat<TrainProgress & DetailsWithWork>(progress);
  // The details carry a copy of the progress (the next attempt's resume point) and the latest measurement.
  let work: WorkProgress | undefined;
  const beat = () => hb.update({ ...progress, ...(work ? { work } : {}) });
  const report = reportProgress(
    progressMeter(
      { key: input.role ? `train:${input.role}` : 'train', stage: 'train', unit: 'steps', ...(input.role ? { role: input.role } : {}) },
      () => ({
        done: progress.step ?? progress.resumedFromStep ?? 0,
        ...(t.maxSteps !== undefined || progress.totalSteps !== undefined ? { total: t.maxSteps ?? progress.totalSteps } : {}),
        ...(progress.loss !== undefined ? { loss: progress.loss } : {}),
      }),
    ),
    (w) => {
      work = w;
      beat();
    },
  );
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
      beat();
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
        gpus: t.gpus,
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
            beat();
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
        // Only the step's own bad-input code: a step killed by a signal (OOM killer, a dead node) has no exit code
        // and is retried like any crash.
        badInput = step.badInputExitCode !== undefined && r.exitCode === step.badInputExitCode;
        break;
      }
    }
    settled = true;
  } finally {
    clearInterval(poll);
    report.stop();
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
      message: `${failed}. Last lines of ${logFile}:\n${logTail(logFile)}`,
      type: badInput ? 'TrainerConfigError' : 'TrainerFailed',
      nonRetryable: badInput,
    });
}
