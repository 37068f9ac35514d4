// `collab-loop start <config>`: validate a config and start its loop (cli/runs.ts); --wait follows it as `watch` does.
import type { Command } from 'commander';
import { runDataName } from '../../contracts/run-data-name';
import { connectClient, ensureSearchAttributes } from '../connection';
import { collect } from '../option-values';
import { loadRunConfig, startLoop } from '../runs';
import { cliAction } from '../user-error';
import { followRun } from '../watch-run';

export function startCommand(program: Command): void {
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
}
