// The subprocess steps of one training job: a trainer adapter's plan (prepare → train → export), or a `command`
// template rendered with the job's paths; each with the parser of its output lines.
import { ApplicationFailure } from '@temporalio/activity';
import { execa } from 'execa';
import path from 'node:path';
import type { TrainerConfig } from '../../contracts/config';
import { PROJECT_ROOT } from '../subprocess/node-script';
import { renderCommand, TemplateError } from '../subprocess/template';
import { scriptBeside, venvExecutable } from '../subprocess/venv';
import { planTraining, TRAINER_ADAPTERS } from './adapters';
import type { ResumePoint, TrainJob, TrainStep } from './adapters/types';
import { DEFAULT_CHECKPOINT, DEFAULT_PROGRESS, parseTrainerLine, type TrainProgress } from './train-progress';

export const defaultPython = () => venvExecutable('python');

export interface Planned {
  steps: TrainStep[];
  parse: (line: string) => Partial<TrainProgress>;
  versionArgv?: string[];
  resumedFromStep?: number;
  resumeFrom?: string;
}

export function planCommand(
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

export function planAdapter(t: Exclude<TrainerConfig, { kind: 'command' }>, job: TrainJob, resume?: ResumePoint): Planned {
  const adapter = TRAINER_ADAPTERS[t.kind];
  const steps = planTraining(t.kind, job, t, resume).map(({ argv: [cmd, ...args], ...s }) => ({
    ...s,
    argv: [scriptBeside(job.python, cmd), ...args],
    env: withUserEnv(s.env, t.env),
  }));
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

export async function trainerVersion(argv: string[] | undefined): Promise<string> {
  if (!argv) return 'unknown (command trainer)';
  const r = await execa(argv[0], argv.slice(1), { reject: false, timeout: 120_000, cwd: PROJECT_ROOT });
  return r.exitCode === 0
    ? (String(r.stdout).trim().split('\n').pop() ?? '')
    : `unknown (${String(r.stderr || r.shortMessage)
        .trim()
        .split('\n')
        .pop()})`;
}
