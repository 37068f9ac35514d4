// `collab-loop status <name>`: where a run is, as text, JSON or (--config) the config it goes on with.
import type { Command } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { iterationConfigQuery, iterationWorkflowId } from '../../contracts/messages';
import { renderStatus } from '../format';
import { runConfig } from '../loop-workflow';
import { getRunStatusRetrying } from '../status-retrying';
import { connectClientRetrying } from '../server-retry';
import { cliAction } from '../user-error';
import { queryInTime } from '../worker-busy';

export function statusCommand(program: Command): void {
  program
    .command('status <name>')
    .description('iteration, stage, progress counts, tokens and metrics of a run')
    .option('--json', 'machine-readable')
    .option('--config', 'the config the run goes on with (the file, plus every `retry --set` change), as YAML')
    .action(
      cliAction(async (name: string, o: { json?: boolean; config?: boolean }) => {
        const client = await connectClientRetrying('status');
        const s = await getRunStatusRetrying(client, name);
        if (o.config) {
          // A running iteration's config holds its own retry's change before the loop carries it on.
          const running = s.workflowStatus === 'RUNNING' && s.iteration;
          const config = running
            ? await queryInTime(client, () =>
                client.workflow.getHandle(iterationWorkflowId(name, s.loop.iteration)).query(iterationConfigQuery),
              )
            : await runConfig(client, name);
          console.log(stringifyYaml(config ?? null).trimEnd());
          return;
        }
        console.log(o.json ? JSON.stringify(s, null, 2) : renderStatus(s));
      }),
    );
}
