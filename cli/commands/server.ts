// `collab-loop server`: the Temporal dev server in the foreground, or started in the background with --detach.
import type { Command } from 'commander';
import { port } from '../option-values';
import { cliAction } from '../user-error';

export function serverCommand(program: Command): void {
  program
    .command('server')
    .description('run the Temporal dev server (persistent SQLite under --state-dir, UI on --ui-port)')
    .option('--state-dir <dir>', 'where temporal.sqlite lives', 'state')
    .option('--port <n>', 'gRPC port', '7233')
    .option('--ui-port <n>', 'web UI port', '8233')
    .option('--detach', 'start it in the background (logging to <state-dir>/temporal-server.log) and return')
    .action(
      cliAction(async (o: { stateDir: string; port: string; uiPort: string; detach?: boolean }) => {
        const ports = { port: port(o.port), uiPort: port(o.uiPort) };
        if (o.detach) {
          const { ensureDevServer } = await import('../server-control');
          const s = await ensureDevServer(o.stateDir, ports);
          if (!s.started) return console.log(`a server is already listening on ${s.address}; UI ${s.uiUrl}`);
          console.log(`Temporal dev server on ${s.address}, UI ${s.uiUrl} (pid ${s.pid}, log ${s.log}); stop it with: kill ${s.pid}`);
          return;
        }
        const { runDevServer } = await import('../server-control');
        console.log(`Temporal dev server on 127.0.0.1:${o.port}, UI http://localhost:${o.uiPort} (state ${o.stateDir}/temporal.sqlite)`);
        process.exitCode = await runDevServer({ stateDir: o.stateDir, ...ports });
      }),
    );
}
