// collab-loop: start, watch and steer durable self-improvement loops. One module per command under cli/commands/;
// each loads what only it needs (the workers, one-shot runs, the HTML report) inside its action, so `--help`
// and the quick commands stay light.
import { Command } from 'commander';
import { continueCommand } from './commands/continue';
import { demoCommand } from './commands/demo';
import { devStackCommand } from './commands/dev-stack';
import { evalCommand } from './commands/eval';
import { listCommand } from './commands/list';
import { pauseResumeCommands } from './commands/pause-resume';
import { reportCommand } from './commands/report';
import { retryCommand } from './commands/retry';
import { scoreCommand } from './commands/score';
import { serverCommand } from './commands/server';
import { startCommand } from './commands/start';
import { statusCommand } from './commands/status';
import { stopCommand } from './commands/stop';
import { watchCommand } from './commands/watch';
import { workerCommand } from './commands/worker';

const program = new Command('collab-loop')
  .description('Durable self-improvement loops for collaborative and multi-agent LLMs (Temporal workflows)')
  .showHelpAfterError();

// In the order `--help` lists them.
for (const register of [
  serverCommand,
  devStackCommand,
  workerCommand,
  startCommand,
  continueCommand,
  statusCommand,
  watchCommand,
  listCommand,
  pauseResumeCommands,
  stopCommand,
  retryCommand,
  reportCommand,
  evalCommand,
  demoCommand,
  scoreCommand,
])
  register(program);

// A command's user mistakes are caught in its action (cliAction: one line, exit 2). Temporal's native runtime and a
// detached dev server's pipes can keep the event loop alive after a one-shot command has finished; the command's
// work is done, so leave.
await program.parseAsync(process.argv);
process.exit(process.exitCode ?? 0);
