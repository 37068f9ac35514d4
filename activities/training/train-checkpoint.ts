// Train stage: runs the configured trainer command as a subprocess in its own process group, streams its output
// to a log, turns progress lines into heartbeats (step, loss, last checkpoint) and kills the whole tree on
// cancellation. A retry reads the previous attempt's last checkpoint from the heartbeat details ({resume_from}).
import { ApplicationFailure, Context } from '@temporalio/activity';
import { execa } from 'execa';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { TrainResult } from '../../workflows/types';
import type { StageContext } from '../../workflows/activity-types';
import type { ArtifactRef } from '../artifacts/ref';
import { ArtifactStore, sha256Hex, writeFileAtomic } from '../artifacts/store';
import { previousHeartbeat, startHeartbeat } from '../heartbeat';
import { writeStageManifest } from '../manifest';
import { CHECKPOINT_MANIFEST } from '../serving/checkpoint-identity';
import { killProcessGroup, reapPidFile, writePidFile } from '../subprocess/process-group';
import { PROJECT_ROOT } from '../subprocess/node-script';
import { renderCommand, TemplateError } from '../subprocess/template';

export interface TrainProgress {
  step?: number;
  loss?: number;
  /** Last checkpoint the trainer announced: a retry resumes from it. */
  checkpoint?: string;
  attempt: number;
}

const DEFAULT_PROGRESS = /\bstep[\s=:]+(?<step>\d+)\b.*?\bloss[\s=:]+(?<loss>-?[0-9.]+(?:e[-+]?\d+)?)/i;
const DEFAULT_CHECKPOINT = /\bsaved checkpoint[\s:=]+(?<path>\S+)/i;

export function parseTrainerLine(line: string, progress: RegExp, checkpoint: RegExp): Partial<TrainProgress> {
  const out: Partial<TrainProgress> = {};
  const p = progress.exec(line);
  if (p?.groups?.step !== undefined) out.step = Number(p.groups.step);
  if (p?.groups?.loss !== undefined && Number.isFinite(Number(p.groups.loss))) out.loss = Number(p.groups.loss);
  const c = checkpoint.exec(line);
  if (c?.groups?.path) out.checkpoint = c.groups.path;
  return out;
}

function tail(file: string, lines = 20): string {
  return existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
}

export async function trainCheckpoint(
  input: StageContext & { checkpoint: string; data: { sft?: ArtifactRef; dpo?: ArtifactRef } },
): Promise<TrainResult> {
  const train = input.config.train;
  if (!train) throw ApplicationFailure.nonRetryable('no train section in the config', 'ConfigError');
  const ctx = Context.current();
  const { stateDir } = input.config;
  const output = path.join(stateDir, 'checkpoints', input.runName, `iter-${input.iteration + 1}`);
  const logDir = path.join(stateDir, 'logs', input.runName);
  mkdirSync(logDir, { recursive: true });
  mkdirSync(path.dirname(output), { recursive: true });
  const logFile = path.join(logDir, `train-iter-${input.iteration}.log`);
  const pidFile = path.join(stateDir, 'trainers', input.runName, `iter-${input.iteration}.json`);
  await reapPidFile(pidFile); // a trainer orphaned by a killed worker must not train beside this attempt

  const primary = train.method === 'dpo' ? input.data.dpo : input.data.sft;
  if (!primary) throw ApplicationFailure.nonRetryable(`no ${train.method} dataset was built`, 'EmptyDataset');
  const prev = previousHeartbeat<TrainProgress>();
  const dataPath = (r?: ArtifactRef) => (r ? ArtifactStore.pathOf(r) : '');
  let argv: string[];
  try {
    argv = renderCommand(train.command, {
      checkpoint: input.checkpoint, output, data: dataPath(primary), sft_data: dataPath(input.data.sft),
      dpo_data: dataPath(input.data.dpo), iteration: input.iteration, run: input.runName,
      resume_from: prev?.checkpoint ?? '', project: PROJECT_ROOT, method: train.method,
    });
  } catch (err) {
    if (err instanceof TemplateError) throw ApplicationFailure.nonRetryable(`train.command: ${err.message}`, 'ConfigError');
    throw err;
  }
  const progressRe = train.progressPattern ? new RegExp(train.progressPattern) : DEFAULT_PROGRESS;
  const checkpointRe = train.checkpointPattern ? new RegExp(train.checkpointPattern) : DEFAULT_CHECKPOINT;

  const progress: TrainProgress = { attempt: ctx.info.attempt, checkpoint: prev?.checkpoint };
  const hb = startHeartbeat(progress);
  const log = createWriteStream(logFile, { flags: 'a' });
  log.write(`\n--- attempt ${ctx.info.attempt}: ${JSON.stringify(argv)}\n`);
  const child = execa(argv[0], argv.slice(1), {
    detached: true, all: true, buffer: false, reject: false, cleanup: true,
    env: { PYTHONUNBUFFERED: '1' }, cwd: PROJECT_ROOT,
  });
  if (child.pid) writePidFile(pidFile, { pid: child.pid, argv });
  const onAbort = () => { if (child.pid) void killProcessGroup(child.pid, 10_000); };
  ctx.cancellationSignal.addEventListener('abort', onAbort, { once: true });
  try {
    if (child.all) {
      for await (const line of createInterface({ input: child.all })) {
        log.write(line + '\n');
        const parsed = parseTrainerLine(line, progressRe, checkpointRe);
        if (Object.keys(parsed).length) { Object.assign(progress, parsed); hb.update({ ...progress }); }
      }
    }
    const result = await child;
    if (ctx.cancellationSignal.aborted) {
      if (child.pid) await killProcessGroup(child.pid, 10_000);
      throw ctx.cancellationSignal.reason;
    }
    if (result.failed && (result as { code?: string }).code === 'ENOENT')
      throw ApplicationFailure.nonRetryable(`train.command: executable "${argv[0]}" not found`, 'TrainerConfigError');
    if (result.exitCode !== 0)
      throw ApplicationFailure.create({
        message: `trainer exited with ${result.exitCode ?? result.signal} (attempt ${ctx.info.attempt}). Last lines of ${logFile}:\n${tail(logFile)}`,
        type: 'TrainerFailed',
      });
  } finally {
    hb.stop();
    ctx.cancellationSignal.removeEventListener('abort', onAbort);
    await new Promise((r) => log.end(r));
    await reapPidFile(pidFile);
  }
  if (!existsSync(output))
    throw ApplicationFailure.create({ message: `trainer exited 0 but wrote no checkpoint at ${output} (does the command use {output}?)`, type: 'TrainerFailed' });

  // Lineage: which data, which base, which command made these weights.
  const lineage = {
    run: input.runName, iteration: input.iteration, baseCheckpoint: input.checkpoint, method: train.method,
    dataset: { sha256: primary.sha256, rows: primary.rows, uri: primary.uri },
    argv, finalLoss: progress.loss ?? null, steps: progress.step ?? null,
  };
  writeFileAtomic(path.join(output, CHECKPOINT_MANIFEST), JSON.stringify(lineage, null, 2));
  const manifest = writeStageManifest(stateDir, {
    run: input.runName, iteration: input.iteration, stage: 'train',
    inputs: { checkpoint: input.checkpoint, data: primary }, params: { train, argv },
    outputs: { checkpoint: output, checkpointSha256: sha256Hex(JSON.stringify(lineage)), finalLoss: progress.loss ?? null, steps: progress.step ?? null },
  });
  return { checkpoint: output, manifest, finalLoss: progress.loss, steps: progress.step };
}
