// Every command of the CLI, in the order `--help` lists them, and how to load the module that registers it: the CLI
// loads only the module of the command asked for (cli/main.ts). tests/unit/cli/commands.test.ts checks each name
// against what its module registers.
import type { Command } from 'commander';

export type Register = (program: Command) => void;

/** Every command, in the order `--help` lists them, and the module that registers it. */
export const COMMANDS: Array<[string, () => Promise<Register>]> = [
  ['server', async () => (await import('./server')).serverCommand],
  ['dev-stack', async () => (await import('./dev-stack')).devStackCommand],
  ['worker', async () => (await import('./worker')).workerCommand],
  ['start', async () => (await import('./start')).startCommand],
  ['continue', async () => (await import('./continue')).continueCommand],
  ['status', async () => (await import('./status')).statusCommand],
  ['watch', async () => (await import('./watch')).watchCommand],
  ['list', async () => (await import('./list')).listCommand],
  ['pause', async () => (await import('./pause-resume')).pauseResumeCommands],
  ['resume', async () => (await import('./pause-resume')).pauseResumeCommands],
  ['stop', async () => (await import('./stop')).stopCommand],
  ['retry', async () => (await import('./retry')).retryCommand],
  ['report', async () => (await import('./report')).reportCommand],
  ['eval', async () => (await import('./eval')).evalCommand],
  ['demo', async () => (await import('./demo')).demoCommand],
  ['score', async () => (await import('./score')).scoreCommand],
];
