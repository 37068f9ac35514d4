// Runs untrusted Python (LLM-written code) in a throw-away sandbox. With bubblewrap (the default), from outside in:
//   uid/gid U = 60000 + slot      Node spawns the chain as U (supplementary groups dropped): one uid per
//                                 concurrency slot, because RLIMIT_NPROC counts per uid and is ignored for uid 0
//   prlimit --as --cpu --nproc --fsize --nofile --core=0
//   bwrap --unshare-all ...       private user/pid/net/ipc/uts/cgroup namespaces, no_new_privs, no capabilities;
//                                 the filesystem is /usr read-only, size-capped /tmp and /dev/shm, and the run's
//                                 own directory at /sandbox; nothing else exists
//   /usr/bin/python3 -I -S -B     the system interpreter (the pyenv one under /root is unreadable to other uids),
//     -c <prelude> <script>       with an 8-line prelude that closes inherited descriptors, appends the sandbox's
//                                 packages (sandbox-packages.ts: numpy, pandas, under /usr/local) to sys.path,
//                                 then runs the script
// The wall-clock limit is enforced from here: bwrap reports the sandbox's pid 1 on --info-fd and we SIGKILL it,
// which makes the kernel kill and reap everything in its pid namespace; bwrap then exits on its own and we reap
// it, so no zombie is left to the host's init (it reaps late, and zombies count against the slot's RLIMIT_NPROC).
// If this process dies, --die-with-parent ends the sandbox. `timeout` and `setpriv` are not in this chain: bwrap
// sets no_new_privs itself, Node's spawn switches uid/gid, and each tool would cost a fork/exec per run (measured
// 3-6% of sandboxed throughput on an idle 2-core machine, ~20% on a loaded one).
// Without bubblewrap the fallback is the plain recipe, as root:
//   timeout -s KILL <wall+1> unshare --net --pid --ipc --uts --fork --kill-child --mount-proc prlimit ... --
//     setpriv --reuid=U --regid=U --clear-groups --no-new-privs -- /usr/bin/python3 -I -S -B -c <prelude> <script>
// (our own timer kills the namespace's pid 1 at <wall>; `timeout` is the backstop).
// which has no network and no stray processes, but leaves the host filesystem visible as far as permissions allow.
// Bad code never makes this throw; only a broken installation does, with a message saying what to fix.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants as fsConstants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SANDBOX_REQUIREMENTS, sandboxPackagesDir } from './sandbox-packages';
import { count } from '../metrics';

export type SandboxIsolation = 'bwrap' | 'unshare';

export interface SandboxLimits {
  /** Wall-clock limit for the whole run (SIGKILL). */
  wallSeconds: number;
  /** RLIMIT_CPU (SIGXCPU, then SIGKILL). */
  cpuSeconds: number;
  /** RLIMIT_AS: a bigger allocation raises MemoryError. */
  memoryBytes: number;
  /** RLIMIT_NPROC for the slot's uid: caps fork bombs. */
  processes: number;
  /** RLIMIT_FSIZE: largest file the code may write. */
  fileSizeBytes: number;
  /** RLIMIT_NOFILE. */
  openFiles: number;
  /** Per stream (stdout, stderr): past this the run is killed and `truncated` is set. */
  outputBytes: number;
  /** Size of the private /tmp (and /dev/shm) tmpfs inside bwrap: RAM that the code may fill. */
  tmpBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  wallSeconds: 10,
  cpuSeconds: 5,
  memoryBytes: 512 * 1024 * 1024,
  processes: 64,
  fileSizeBytes: 10 * 1024 * 1024,
  openFiles: 64,
  outputBytes: 1024 * 1024,
  tmpBytes: 16 * 1024 * 1024,
});

export interface SandboxRunOptions {
  /** Files placed in the run's private directory (seen at /sandbox): relative name → content. */
  files: Record<string, string | Uint8Array>;
  /** Which of `files` to run. */
  script: string;
  args?: string[];
  /** Standard input; /dev/null when absent. */
  stdin?: string | Uint8Array;
  /** Concurrency slot: the run's uid is 60000 + slot. Runs on one slot are serialised within this process. */
  slot?: number;
  /** Mount /sandbox read-write (default read-only). */
  writable?: boolean;
  /** Files to read back from the directory after the run (regular files only, each capped at outputBytes). */
  readBack?: string[];
  limits?: Partial<SandboxLimits>;
  /** Force a mechanism (tests of the fallback); default: bwrap when installed, else unshare. */
  isolation?: SandboxIsolation;
}

export interface SandboxResult {
  /** The interpreter's exit code; null when a signal ended the run. */
  exitCode: number | null;
  /** The signal that ended the run (SIGKILL on the wall limit, SIGXCPU on the CPU limit, SIGSEGV, SIGABRT...). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Raw stdout, for binary protocols. */
  stdoutBytes: Buffer;
  /** Killed by the wall-clock limit. */
  timedOut: boolean;
  /** stdout or stderr went past `outputBytes`; the run was killed there. */
  truncated: boolean;
  durationMs: number;
  isolation: SandboxIsolation;
  /** The `readBack` files that existed after the run. */
  files: Record<string, Buffer>;
}

export const SANDBOX_PYTHON = '/usr/bin/python3';
/** uid (and gid) of slot s is SANDBOX_UID_BASE + s. */
export const SANDBOX_UID_BASE = 60000;
export const MAX_SANDBOX_SLOT = 4999;
const TOOLS = {
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
const THREAD_ENV: Record<string, string> = { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };

/** Where run directories live: root-owned, mode 0711, so no sandbox uid can list the others. */
const BASE_DIR = path.join(os.tmpdir(), 'collab-loop-sandbox');

export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxConfigError';
  }
}

export function sandboxUid(slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot > MAX_SANDBOX_SLOT)
    throw new SandboxConfigError(`sandbox slot must be an integer in [0, ${MAX_SANDBOX_SLOT}], got ${slot}`);
  return SANDBOX_UID_BASE + slot;
}

function executable(file: string): boolean {
  try {
    accessSync(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let loggedIsolation: SandboxIsolation | undefined;

/** bwrap when installed, else unshare; logs the choice once per process. */
export function defaultIsolation(): SandboxIsolation {
  const kind: SandboxIsolation = executable(TOOLS.bwrap) ? 'bwrap' : 'unshare';
  if (loggedIsolation !== kind) {
    loggedIsolation = kind;
    // Only the weaker fallback is worth a line, and on stderr: stdout carries data (`collab-loop score`).
    if (kind !== 'bwrap')
      console.warn(
        '[sandbox] bubblewrap is not installed: falling back to unshare (no network, own pid namespace, but the host filesystem is visible as far as permissions allow); install it with `node bin/setup.js` or `apt-get install bubblewrap`',
      );
  }
  return kind;
}

const checked = new Map<SandboxIsolation, Promise<void>>();

function checkTools(isolation: SandboxIsolation): void {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new SandboxConfigError(
      'the Python sandbox must run as root: it switches each run to a per-slot uid (60000 + slot); start the sandbox worker as root',
    );
  }
  if (!executable(SANDBOX_PYTHON))
    throw new SandboxConfigError(`${SANDBOX_PYTHON} is missing: the sandbox runs the system Python (apt-get install python3)`);
  const packages = sandboxPackagesDir(SANDBOX_PYTHON);
  if (!existsSync(packages))
    throw new SandboxConfigError(
      `the sandbox's Python packages (${SANDBOX_REQUIREMENTS}) are not installed in ${packages}: run \`node bin/setup.js\` as root`,
    );
  const tools = isolation === 'bwrap' ? (['prlimit', 'bwrap'] as const) : (['timeout', 'unshare', 'prlimit', 'setpriv'] as const);
  for (const tool of tools) {
    if (!executable(TOOLS[tool]))
      throw new SandboxConfigError(
        `${TOOLS[tool]} is missing (${tool === 'timeout' ? 'coreutils' : tool === 'bwrap' ? 'bubblewrap' : 'util-linux'}): the Python sandbox needs it`,
      );
  }
}

/** A trivial run proves the installation works, so that later failures can be blamed on the code that ran. */
async function preflight(isolation: SandboxIsolation, slot: number): Promise<void> {
  let p = checked.get(isolation);
  if (!p) {
    p = (async () => {
      checkTools(isolation);
      const r = await runUnchecked({ files: { 'check.py': 'print("ok")\n' }, script: 'check.py', slot, isolation });
      if (r.stdout.trim() !== 'ok') {
        const hint =
          isolation === 'bwrap'
            ? ' (bwrap needs unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1 / user.max_user_namespaces > 0)'
            : '';
        throw new SandboxConfigError(
          `the Python sandbox (${isolation}) does not work on this machine${hint}: exit ${r.exitCode ?? r.signal}, stderr: ${r.stderr.trim().slice(0, 500)}`,
        );
      }
    })();
    checked.set(isolation, p);
    p.catch(() => checked.delete(isolation));
  }
  return p;
}

function resolveLimits(partial: Partial<SandboxLimits> | undefined): SandboxLimits {
  const l = { ...DEFAULT_SANDBOX_LIMITS, ...partial };
  for (const [k, v] of Object.entries(l)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new SandboxConfigError(`sandbox limit ${k} must be a positive number, got ${v}`);
  }
  return l;
}

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
        TOOLS.prlimit,
        ...prlimitArgs(l),
        '--',
        TOOLS.bwrap,
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
      TOOLS.timeout,
      '-s',
      'KILL',
      String(l.wallSeconds + 1),
      TOOLS.unshare,
      '--net',
      '--pid',
      '--ipc',
      '--uts',
      '--fork',
      '--kill-child',
      '--mount-proc',
      TOOLS.prlimit,
      ...prlimitArgs(l),
      '--',
      TOOLS.setpriv,
      `--reuid=${o.uid}`,
      `--regid=${o.uid}`,
      '--clear-groups',
      '--no-new-privs',
      '--',
      ...pythonArgv(path.join(o.dir, o.script), o.args),
    ],
  };
}

// One run at a time per slot in this process: concurrent runs on one uid would share its RLIMIT_NPROC budget.
const slotQueues = new Map<number, Promise<unknown>>();

function onSlot<T>(slot: number, job: () => Promise<T>): Promise<T> {
  const prev = slotQueues.get(slot) ?? Promise.resolve();
  const next = prev.then(job, job);
  const tail = next.catch(() => undefined);
  slotQueues.set(slot, tail);
  void tail.then(() => {
    if (slotQueues.get(slot) === tail) slotQueues.delete(slot);
  });
  return next;
}

function validName(name: string): boolean {
  return name.length > 0 && !path.isAbsolute(name) && !name.split(/[\\/]/).some((p) => p === '..' || p === '');
}

let baseDirReady = false;

// Synchronous on purpose: a handful of small files, where each async call would cost a thread-pool round trip
// (measurable against a ~30 ms run); the event loop is held for well under a millisecond.
function makeRunDir(files: Record<string, string | Uint8Array>, uid: number, writable: boolean): string {
  if (!baseDirReady) {
    mkdirSync(BASE_DIR, { recursive: true, mode: 0o711 });
    chownSync(BASE_DIR, 0, 0);
    chmodSync(BASE_DIR, 0o711);
    baseDirReady = true;
    removeStaleRunDirs();
  }
  const dir = path.join(BASE_DIR, `run-${randomBytes(8).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  // Read-only: root owns the files (0644) inside a directory only root and the slot's gid may enter (0750), so
  // no other sandbox uid can reach them (that matters for the unshare fallback, where the host filesystem is
  // visible). Read-write: the slot's uid owns everything (0700/0600).
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    const parent = path.dirname(file);
    if (parent !== dir) {
      mkdirSync(parent, { recursive: true, mode: 0o755 });
      if (writable) for (let d = parent; d !== dir; d = path.dirname(d)) chownSync(d, uid, uid);
    }
    writeFileSync(file, content, { mode: writable ? 0o600 : 0o644 });
    if (writable) chownSync(file, uid, uid);
  }
  chownSync(dir, writable ? uid : 0, uid);
  chmodSync(dir, writable ? 0o700 : 0o750);
  return dir;
}

/** Run directories are removed after each run; only a worker killed mid-run leaves one. Sweep those once. */
const STALE_RUN_DIR_MS = 60 * 60 * 1000;
function removeStaleRunDirs(): void {
  try {
    for (const name of readdirSync(BASE_DIR)) {
      if (!name.startsWith('run-')) continue;
      const dir = path.join(BASE_DIR, name);
      if (Date.now() - lstatSync(dir).mtimeMs > STALE_RUN_DIR_MS) removeRunDir(dir);
    }
  } catch {
    /* best effort */
  }
}

function removeRunDir(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch (err) {
    console.warn(`[sandbox] could not remove ${dir}: ${(err as Error).message}`);
  }
}

async function readBackFiles(dir: string, names: string[], cap: number): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const name of names) {
    if (!validName(name)) continue;
    const file = path.join(dir, name);
    try {
      const st = await lstat(file); // never follow a link the code planted
      if (!st.isFile() || st.size > cap) continue;
      out[name] = await readFile(file);
    } catch {
      /* absent */
    }
  }
  return out;
}

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

interface Spawned {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

function spawnCapped(cmd: SandboxCommand, cwd: string, stdin: string | Uint8Array | undefined, limits: SandboxLimits): Promise<Spawned> {
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

async function runUnchecked(opts: SandboxRunOptions & { isolation: SandboxIsolation }): Promise<SandboxResult> {
  const limits = resolveLimits(opts.limits);
  const slot = opts.slot ?? 0;
  const uid = sandboxUid(slot);
  const isolation = opts.isolation;
  for (const name of [...Object.keys(opts.files), opts.script]) {
    if (!validName(name))
      throw new SandboxConfigError(`sandbox file name must be relative and stay inside the run directory: ${JSON.stringify(name)}`);
  }
  if (!(opts.script in opts.files)) throw new SandboxConfigError(`sandbox script ${opts.script} is not among the files given`);
  const writable = opts.writable ?? false;
  return onSlot(slot, async () => {
    const dir = makeRunDir(opts.files, uid, writable);
    try {
      const cmd = sandboxCommand({ dir, script: opts.script, args: opts.args, uid, writable, limits, isolation });
      const r = await spawnCapped(cmd, dir, opts.stdin, limits);
      let { exitCode, signal } = r;
      let stderr = r.stderr.toString('utf8');
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
      const timedOut = r.timedOut;
      const files = opts.readBack?.length ? await readBackFiles(dir, opts.readBack, limits.outputBytes) : {};
      return {
        exitCode,
        signal,
        stdout: r.stdout.toString('utf8'),
        stderr,
        stdoutBytes: r.stdout,
        timedOut,
        truncated: r.truncated,
        durationMs: Math.round(r.durationMs * 10) / 10,
        isolation,
        files,
      };
    } finally {
      removeRunDir(dir);
    }
  });
}

const UNSHARE_SIGKILL_QUIRK = 'unshare: sigprocmask unblock failed: Invalid argument\n';

function signalName(n: number): NodeJS.Signals | null {
  for (const [name, num] of Object.entries(os.constants.signals)) if (num === n) return name as NodeJS.Signals;
  return null;
}

/**
 * Runs `opts.script` with the system Python inside the sandbox and returns what happened. Never throws because
 * of what the code does (loops, crashes, floods, forks); throws SandboxConfigError when the machine cannot run
 * the sandbox at all (not root, python3/bubblewrap/util-linux missing, user namespaces disabled).
 */
export async function runSandboxedPython(opts: SandboxRunOptions): Promise<SandboxResult> {
  const isolation = opts.isolation ?? defaultIsolation();
  await preflight(isolation, opts.slot ?? 0);
  const r = await runUnchecked({ ...opts, isolation });
  count('sandboxRuns', 1, { outcome: r.timedOut ? 'timeout' : r.exitCode === 0 ? 'ok' : 'error' });
  return r;
}

/** Pids of live processes (zombies included) owned by a slot's uid: tests use it to prove nothing escaped. */
export function processesOfSlot(slot: number): number[] {
  const r = spawnSync('ps', ['-u', String(sandboxUid(slot)), '-o', 'pid='], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
}
