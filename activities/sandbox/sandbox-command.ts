// The command line of one sandboxed run: bwrap(1) and prlimit(1), or unshare(1) and setpriv(1) without bubblewrap.
// With bubblewrap (the default), from outside in:
//   uid/gid U = 60000 + slot      Node spawns the chain as U (supplementary groups dropped): one uid per
//                                 concurrency slot (sandbox-slots.ts)
//   prlimit --as --cpu --nproc --fsize --nofile --core=0
//   bwrap --unshare-all ...       private user/pid/net/ipc/uts/cgroup namespaces, no_new_privs, no capabilities;
//                                 the filesystem is /usr read-only, size-capped /tmp and /dev/shm, and the run's
//                                 own directory at /sandbox; nothing else exists
//   /usr/bin/python3 -I -S -B     the system interpreter (the pyenv one under /root is unreadable to other uids),
//     -c <prelude> <script>       with an 8-line prelude that closes inherited descriptors, appends the sandbox's
//                                 packages (sandbox-packages.ts: numpy, pandas, under /usr/local) to sys.path,
//                                 then runs the script
// If this process dies, --die-with-parent ends the sandbox. `timeout` and `setpriv` are not in this chain: bwrap
// sets no_new_privs itself, Node's spawn switches uid/gid, and each tool would cost a fork/exec per run (measured
// 3-6% of sandboxed throughput on an idle 2-core machine, ~20% on a loaded one).
// Without bubblewrap the fallback is the plain recipe, as root:
//   timeout -s KILL <wall+1> unshare --net --pid --ipc --uts --fork --kill-child --mount-proc prlimit ... --
//     setpriv --reuid=U --regid=U --clear-groups --no-new-privs -- /usr/bin/python3 -I -S -B -c <prelude> <script>
// which has no network and no stray processes, but leaves the host filesystem visible as far as permissions allow.
// (our own timer, capped-spawn.ts, kills the namespace's pid 1 at <wall>; `timeout` is the backstop).
import { lstatSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxLimits } from './sandbox-limits';
import { sandboxPackagesDir } from './sandbox-packages';

export type SandboxIsolation = 'bwrap' | 'unshare';

export const SANDBOX_PYTHON = '/usr/bin/python3';

export const SANDBOX_TOOLS = {
  timeout: '/usr/bin/timeout',
  prlimit: '/usr/bin/prlimit',
  setpriv: '/usr/bin/setpriv',
  bwrap: '/usr/bin/bwrap',
  unshare: '/usr/bin/unshare',
};

/**
 * Runs the script as __main__ after closing every inherited descriptor above stderr. Neither bwrap nor libuv close
 * descriptors the worker itself inherited without O_CLOEXEC (a supervisor's pipe, say), and the code must not get
 * to write into them. The packages directory goes last on sys.path: nothing in it can shadow a standard module.
 */
function pythonPrelude(): string {
  return [
    'import os, sys',
    'os.closerange(3, 1 << 30)',
    `sys.path.append(${JSON.stringify(sandboxPackagesDir(SANDBOX_PYTHON))})`,
    'del sys.argv[0]',
    '__file__ = sys.argv[0]',
    'with open(__file__, "rb") as f: __code__ = compile(f.read(), __file__, "exec")',
    'del os, sys, f',
    'exec(__code__)',
  ].join('\n');
}

function pythonArgv(script: string, args: string[] | undefined): string[] {
  return [SANDBOX_PYTHON, '-I', '-S', '-B', '-c', pythonPrelude(), script, ...(args ?? [])];
}

/** One thread per BLAS call: OpenBLAS (numpy's) otherwise starts a thread per host core at import, each counted
 *  against the slot's RLIMIT_NPROC and reserving memory under RLIMIT_AS, so `import numpy` can fail on a many-core host. */
export const THREAD_ENV: Record<string, string> = { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };

function prlimitArgs(l: SandboxLimits): string[] {
  return [
    `--as=${Math.floor(l.memoryBytes)}`,
    `--cpu=${Math.max(1, Math.ceil(l.cpuSeconds))}`,
    `--nproc=${Math.floor(l.processes)}`,
    `--fsize=${Math.floor(l.fileSizeBytes)}`,
    `--nofile=${Math.floor(l.openFiles)}`,
    '--core=0',
  ];
}

/** /lib, /lib64, /bin are symlinks into /usr on merged-/usr systems (Debian ≥ 12); bind them otherwise. */
function systemDirArgs(): string[] {
  const out: string[] = ['--ro-bind', '/usr', '/usr'];
  for (const d of ['/lib', '/lib64', '/bin']) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(d);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) out.push('--symlink', `usr${d}`, d);
    else out.push('--ro-bind', d, d);
  }
  return out;
}

export interface SandboxCommand {
  /** Program first. */
  argv: string[];
  /** Spawn as this uid/gid (the bwrap chain); absent when the chain switches identity itself (setpriv). */
  uid?: number;
  /** The argv reports the sandbox's pid 1 as JSON on fd 3 (bwrap --info-fd). */
  infoFd: boolean;
}

/** The command of one sandboxed run; exported so that reports and tests can show it. */
export function sandboxCommand(o: {
  dir: string;
  script: string;
  args?: string[];
  uid: number;
  writable: boolean;
  limits: SandboxLimits;
  isolation: SandboxIsolation;
}): SandboxCommand {
  const l = o.limits;
  if (o.isolation === 'bwrap') {
    const tmp = String(Math.floor(l.tmpBytes));
    return {
      uid: o.uid,
      infoFd: true,
      argv: [
        SANDBOX_TOOLS.prlimit,
        ...prlimitArgs(l),
        '--',
        SANDBOX_TOOLS.bwrap,
        '--unshare-all',
        '--unshare-user',
        '--disable-userns',
        // The program is the namespace's pid 1 (no bwrap reaper process): bwrap's reaper would outlive every run
        // as a zombie of the host's init. When pid 1 exits, the kernel kills and reaps the rest of the namespace.
        '--as-pid-1',
        '--die-with-parent',
        '--new-session',
        '--info-fd',
        '3',
        ...systemDirArgs(),
        '--proc',
        '/proc',
        '--dev',
        '/dev',
        '--size',
        tmp,
        '--tmpfs',
        '/dev/shm',
        '--remount-ro',
        '/dev',
        '--size',
        tmp,
        '--tmpfs',
        '/tmp',
        o.writable ? '--bind' : '--ro-bind',
        o.dir,
        '/sandbox',
        // bwrap's root is an unbounded tmpfs: read-only, so that only the sized mounts take writes.
        '--remount-ro',
        '/',
        '--chdir',
        '/sandbox',
        '--clearenv',
        '--setenv',
        'PATH',
        '/usr/bin',
        '--setenv',
        'HOME',
        '/sandbox',
        ...Object.entries(THREAD_ENV).flatMap(([k, v]) => ['--setenv', k, v]),
        '--hostname',
        'sandbox',
        '--',
        ...pythonArgv(path.posix.join('/sandbox', o.script), o.args),
      ],
    };
  }
  return {
    infoFd: false,
    argv: [
      // A backstop: our own timer kills the namespace's pid 1 at the wall limit, which leaves no orphan behind.
      SANDBOX_TOOLS.timeout,
      '-s',
      'KILL',
      String(l.wallSeconds + 1),
      SANDBOX_TOOLS.unshare,
      '--net',
      '--pid',
      '--ipc',
      '--uts',
      '--fork',
      '--kill-child',
      '--mount-proc',
      SANDBOX_TOOLS.prlimit,
      ...prlimitArgs(l),
      '--',
      SANDBOX_TOOLS.setpriv,
      `--reuid=${o.uid}`,
      `--regid=${o.uid}`,
      '--clear-groups',
      '--no-new-privs',
      '--',
      ...pythonArgv(path.join(o.dir, o.script), o.args),
    ],
  };
}

const UNSHARE_SIGKILL_QUIRK = 'unshare: sigprocmask unblock failed: Invalid argument\n';

function signalName(n: number): NodeJS.Signals | null {
  for (const [name, num] of Object.entries(os.constants.signals)) if (num === n) return name as NodeJS.Signals;
  return null;
}

/** How the interpreter ended, read from how the chain around it exited. */
export function interpreterExit(
  isolation: SandboxIsolation,
  chain: { exitCode: number | null; signal: NodeJS.Signals | null; stderr: string },
): { exitCode: number | null; signal: NodeJS.Signals | null; stderr: string } {
  let { exitCode, signal, stderr } = chain;
  // util-linux 2.38 `unshare` cannot re-raise SIGKILL on itself when its child died of it and exits 1 instead.
  if (isolation === 'unshare' && exitCode === 1 && stderr.endsWith(UNSHARE_SIGKILL_QUIRK)) {
    stderr = stderr.slice(0, -UNSHARE_SIGKILL_QUIRK.length);
    exitCode = null;
    signal = 'SIGKILL';
  }
  // A signal that ended the interpreter reaches us as exit code 128+n (bwrap, unshare); report it as a signal.
  // (An exit status above 128 chosen by the code itself is indistinguishable and is reported the same way.)
  if (exitCode !== null && exitCode > 128 && exitCode < 128 + 65) {
    const name = signalName(exitCode - 128);
    if (name) {
      signal = name;
      exitCode = null;
    }
  }
  return { exitCode, signal, stderr };
}
