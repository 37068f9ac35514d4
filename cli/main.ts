// collab-loop: start, watch and steer durable self-improvement loops. One module per command under cli/commands/;
// each loads what only it needs (the workers, one-shot runs, the HTML report) inside its action. Only the module of
// the command asked for is loaded: a status or a pause does not load the config schema and every recipe behind it
// (the CLI is a fresh process per command, so its start-up is most of a quick command's time).
import { Command } from 'commander';
import { COMMANDS } from './commands';
import { exitClosingCaches } from '../activities/llm/opened-caches';

const program = new Command('collab-loop')
  .description('Durable self-improvement loops for collaborative and multi-agent LLMs (Temporal workflows)')
  .showHelpAfterError();

// A known command name registers its own module; anything else (--help, no command, a typo to suggest a fix for)
// registers them all. A module registering two commands (pause, resume) is registered once.
const asked = COMMANDS.filter(([name]) => name === process.argv[2]);
const registers = await Promise.all((asked.length ? asked : COMMANDS).map(([, load]) => load()));
for (const register of new Set(registers)) register(program);

// A command's user mistakes are caught in its action (cliAction: one line, exit 2). Temporal's native runtime and a
// detached dev server's pipes can keep the event loop alive after a one-shot command has finished; the command's
// work is done, so leave.
await program.parseAsync(process.argv);
await exitClosingCaches(process.exitCode ?? 0);
