// `collab-loop report <name>`: metrics and lineage tables; the HTML page's renderers load only with --html.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { storeFor } from '../../activities/artifacts/store';
import { probeAnswersByIteration } from '../../activities/report/probe-text';
import { lineageLines, metricsTable } from '../format';
import { runConfig } from '../loop-workflow';
import { getRunStatusRetrying } from '../status-retrying';
import { connectClientRetrying, serverRetryMs, withServerRetry } from '../server-retry';
import { cliAction, UserError } from '../user-error';

export function reportCommand(program: Command): void {
  program
    .command('report <name>')
    .description('metrics per iteration and the lineage as tables; with --html, one self-contained page to look at the data')
    .option('--html [file]', 'also write the HTML report (default file: <name>-report.html)')
    .option('--samples <n>', 'conversations shown per iteration in the HTML report', '12')
    .action(
      cliAction(async (name: string, o: { html?: string | true; samples: string }) => {
        const client = await connectClientRetrying('status');
        const s = await getRunStatusRetrying(client, name);
        const samples = Number(o.samples);
        if (o.html && (!Number.isInteger(samples) || samples < 0))
          throw new UserError(`--samples: "${o.samples}" is not a number of conversations`);
        const config = await withServerRetry(() => runConfig(client, name), {
          what: `reading run ${name}`,
          giveUpAfterMs: serverRetryMs('status'),
        });
        console.log(metricsTable(s.loop.done));
        if (config?.paper) {
          const { paperFiguresText } = await import('../../activities/report/paper-figures');
          console.log(`\n${paperFiguresText(config.paper, s.loop.done)}`);
        }
        // The probe's answers are read from where the run stores its artifacts (its config says where).
        const probes = config ? await probeAnswersByIteration(s.loop.done, storeFor(config)) : undefined;
        if (s.loop.done.length) console.log(`\nlineage:\n${lineageLines(s.loop.done, probes)}`);
        if (!o.html) return;
        const file = o.html === true ? `${name}-report.html` : o.html;
        const { reportHtml } = await import('../../activities/report/report-html');
        const { recipeRuntime } = await import('../../activities/recipes/runtime');
        const recipe = config ? { config, recipe: () => recipeRuntime(config) } : {};
        writeFileSync(file, await reportHtml(name, s.loop.done, { ...recipe, samplesPerIteration: samples }));
        console.log(`\nHTML report: ${path.resolve(file)}`);
      }),
    );
}
