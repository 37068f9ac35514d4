// Spawns a sandbox command (sandbox-command.ts) with the wall-clock limit and the output caps enforced from here,
// and collects what it wrote. With bwrap, bwrap reports the sandbox's pid 1 on --info-fd (bwrap(1)) and we SIGKILL
// it, which makes the kernel kill and reap everything in its pid namespace (pid_namespaces(7)); bwrap then exits on
// its own and we reap it, so no zombie is left to the host's init (it reaps late, and zombies count against the
// slot's RLIMIT_NPROC).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type SandboxCommand, THREAD_ENV } from './sandbox-command';
import { SandboxConfigError } from './sandbox-config-error';
import type { SandboxLimits } from './sandbox-limits';

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The process `depth` generations below `pid` along first children, if the chain is that deep yet. */
function deepestDescendant(pid: number, depth: number): number | undefined {
  let p = pid;
  for (let i = 0; i < depth; i++) {
    const c = childrenOf(p);
    if (c.length === 0) return undefined;
    p = c[0];
  }
  return p;
}

/** How a capped spawn ended, with the bytes it wrote (each stream cut at `outputBytes`). */
export interface Spawned {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

export function spawnCapped(
  cmd: SandboxCommand,
  cwd: string,
  stdin: string | Uint8Array | undefined,
  limits: SandboxLimits,
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd.argv[0], cmd.argv.slice(1), {
      cwd,
      env: { PATH: '/usr/bin:/bin', LC_ALL: 'C.UTF-8', ...THREAD_ENV }, // the fallback's interpreter inherits it; bwrap sets its own
      stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', ...(cmd.infoFd ? (['pipe'] as const) : [])],
      detached: true, // its own process group: the backstop kill reaches the whole chain
      ...(cmd.uid !== undefined ? { uid: cmd.uid, gid: cmd.uid } : {}),
    });
    const cap = Math.floor(limits.outputBytes);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    let truncated = false;
    let timedOut = false;
    let closed = false;
    let sandboxPid: number | undefined;
    let info = '';
    if (cmd.infoFd) {
      const infoStream = child.stdio[3] as NodeJS.ReadableStream;
      infoStream.on('data', (c: Buffer) => {
        info += c.toString('utf8');
        const m = /"child-pid":\s*(\d+)/.exec(info);
        if (m) sandboxPid = Number(m[1]);
      });
      infoStream.on('error', () => undefined);
    }
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    let backstop: NodeJS.Timeout | undefined;
    // SIGKILL the sandbox's pid 1 first, so that bwrap reaps it and exits by itself; kill the whole chain only if
    // that did not end it (or bwrap never got as far as reporting the pid).
    const stop = () => {
      if (closed || backstop) return;
      if (sandboxPid !== undefined) {
        try {
          process.kill(sandboxPid, 'SIGKILL');
        } catch {
          /* already gone */
        }
        backstop = setTimeout(killGroup, 1000);
      } else {
        // The fallback: timeout → unshare → the namespace's pid 1 (the interpreter). Kill that one first too.
        const init = child.pid ? deepestDescendant(child.pid, 2) : undefined;
        if (init !== undefined) {
          try {
            process.kill(init, 'SIGKILL');
          } catch {
            /* gone */
          }
        } else killGroup();
        backstop = setTimeout(killGroup, 1000);
      }
    };
    // Each stream keeps its first `cap` bytes; the first overflow ends the run.
    const full = new Set<Buffer[]>();
    const take = (chunks: Buffer[], len: number, chunk: Buffer): number => {
      if (full.has(chunks)) return len;
      const room = cap - len;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        full.add(chunks);
        truncated = true;
        stop();
        return cap;
      }
      chunks.push(chunk);
      return len + chunk.length;
    };
    child.stdout!.on('data', (c: Buffer) => {
      outLen = take(out, outLen, c);
    });
    child.stderr!.on('data', (c: Buffer) => {
      errLen = take(err, errLen, c);
    });
    if (stdin !== undefined) {
      child.stdin!.on('error', () => {
        /* the code closed stdin early */
      });
      child.stdin!.end(stdin);
    }
    const wall = setTimeout(() => {
      if (!truncated) timedOut = true;
      stop();
    }, limits.wallSeconds * 1000);
    child.on('error', (e) => {
      clearTimeout(wall);
      if (backstop) clearTimeout(backstop);
      reject(new SandboxConfigError(`could not start ${cmd.argv[0]}: ${e.message}`));
    });
    child.on('close', (exitCode, signal) => {
      closed = true;
      clearTimeout(wall);
      if (backstop) clearTimeout(backstop);
      resolve({
        exitCode,
        signal,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err),
        timedOut,
        truncated,
        durationMs: performance.now() - started,
      });
    });
  });
}
