// `collab-loop dev-stack`: the services of a multi-host rehearsal on one host (cli/dev-stack.ts starts and stops them).
import type { Command } from 'commander';
import { port } from '../option-values';
import { cliAction, UserError } from '../user-error';

export function devStackCommand(program: Command): void {
  program
    .command('dev-stack')
    .description(
      'for a multi-host rehearsal: the Temporal dev server, SeaweedFS (S3) with a bucket and Redis, their data under --state-dir; prints what the other hosts set',
    )
    .option('--state-dir <dir>', 'their data, logs, pid files and credentials.env', 'state/dev-stack')
    .option('--temporal-port <n>', 'Temporal gRPC port', '7233')
    .option('--ui-port <n>', 'Temporal web UI port', '8233')
    .option('--s3-port <n>', 'SeaweedFS S3 port', '8333')
    .option('--redis-port <n>', 'Redis port', '6379')
    .option('--bucket <name>', 'the bucket created for runs', 'collab-loop')
    .option('--detach', 'start them in the background and return (stop them with --stop)')
    .option('--stop', 'stop the stack started under --state-dir')
    .action(
      cliAction(
        async (
          o: {
            stateDir: string;
            temporalPort: string;
            uiPort: string;
            s3Port: string;
            redisPort: string;
            bucket: string;
            detach?: boolean;
            stop?: boolean;
          },
          cmd: Command,
        ) => {
          const { checkBucketName, startDevStack, stopDevStack } = await import('../dev-stack');
          if (o.stop) {
            const given = cmd.options.filter((opt) => opt.attributeName() !== 'stateDir' && opt.attributeName() !== 'stop');
            const extra = given.find((opt) => cmd.getOptionValueSource(opt.attributeName()) === 'cli');
            if (extra) throw new UserError(`--stop takes only --state-dir (not ${extra.long})`);
            const stopped = await stopDevStack(o.stateDir);
            return console.log(stopped.length ? `stopped ${stopped.join(', ')}` : `no dev stack was running under ${o.stateDir}`);
          }
          const ports = { temporal: port(o.temporalPort), ui: port(o.uiPort), s3: port(o.s3Port), redis: port(o.redisPort) };
          const { settings, children } = await startDevStack({
            stateDir: o.stateDir,
            ports,
            bucket: checkBucketName(o.bucket),
            detach: !!o.detach,
          });
          console.log(settings);
          if (o.detach) return;
          console.log('# running; Ctrl-C stops all three');
          const ended = await new Promise<string>((resolve) => {
            for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
            for (const c of children) c.once('exit', (code, sig) => resolve(`a service exited (${code ?? sig})`));
          });
          await stopDevStack(o.stateDir);
          if (!ended.startsWith('SIG')) throw new Error(`${ended}; stopped the others (logs under ${o.stateDir})`);
        },
      ),
    );
}
