// `collab-loop demo <config>`: a whole loop with its own dev server and in-process workers (cli/one-shot.ts, loaded only here).
import type { Command } from 'commander';
import { collect } from '../option-values';
import { loadRunConfig } from '../runs';
import { cliAction } from '../user-error';

export function demoCommand(program: Command): void {
  program
    .command('demo <config>')
    .description('start (or reuse) the dev server, run the loop with in-process workers, print metrics')
    .option('--name <name>', 'run name (refused when used; default: the config name, or the next free <name>-2, …)')
    .option('--set <key=value>', 'override a config field (repeatable)', collect, [])
    .option('--stop-server', 'stop the dev server at the end if the demo started it')
    .action(
      cliAction(async (file: string, o: { name?: string; set: string[]; stopServer?: boolean }) => {
        const { runDemo } = await import('../one-shot');
        await runDemo(await loadRunConfig(file, { overrides: o.set, name: o.name }), { stopServer: !!o.stopServer, freshName: !o.name });
      }),
    );
}
