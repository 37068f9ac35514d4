// Containment of untrusted Python by runSandboxedPython (bubblewrap). Each abuse case fails this file if the code
// gets out: the host must not see its files, connections, processes or load. Slots 100-119 belong to this file
// (test files run two at a time; a slot is a uid, and RLIMIT_NPROC counts per uid).
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesOfSlot, runSandboxedPython, sandboxCommand, DEFAULT_SANDBOX_LIMITS, type SandboxResult } from '../../activities/sandbox/python-sandbox';
import { PROJECT_ROOT } from '../../activities/subprocess/node-script';
import { seekerProgram } from './seeker';

const SLOT = 100;
const run = (code: string, extra: Partial<Parameters<typeof runSandboxedPython>[0]> = {}) =>
  runSandboxedPython({ files: { 'main.py': code }, script: 'main.py', slot: SLOT, ...extra });

/** Counts event-loop ticks while `job` runs: the calling process stays responsive. */
async function withTicks<T>(job: () => Promise<T>): Promise<{ value: T; ticks: number; ms: number }> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 50);
  const t0 = Date.now();
  try {
    const value = await job();
    return { value, ticks, ms: Date.now() - t0 };
  } finally {
    clearInterval(timer);
  }
}

function expectNoSurvivors(slot = SLOT): void {
  expect(processesOfSlot(slot)).toEqual([]);
}

describe('runSandboxedPython (bwrap)', () => {
  it('runs code and reports how it ended', async () => {
    const r = await run('import sys\nprint("out"); print("err", file=sys.stderr); sys.exit(3)');
    expect(r).toMatchObject({ exitCode: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false, truncated: false, isolation: 'bwrap' });
    expect(r.durationMs).toBeGreaterThan(0);
    expectNoSurvivors();
  });

  it('shows the code only /usr, its own directory, a private /tmp, /proc and /dev, as an unprivileged uid', async () => {
    const r = await run(
      'import os, json\n' +
        'st = {l.split(":")[0]: l.split(":")[1].strip() for l in open("/proc/self/status") if ":" in l}\n' +
        'print(json.dumps({"root": sorted(os.listdir("/")), "cwd": os.getcwd(), "here": sorted(os.listdir(".")), "uid": os.getuid(),\n' +
        '  "nnp": st["NoNewPrivs"], "capeff": st["CapEff"], "procs": sorted(p for p in os.listdir("/proc") if p.isdigit()), "env": dict(os.environ)}))',
    );
    const seen = JSON.parse(r.stdout);
    expect(seen.root).toEqual(['bin', 'dev', 'lib', 'lib64', 'proc', 'sandbox', 'tmp', 'usr'].filter((d) => d !== 'lib64' || existsSync('/lib64')));
    expect(seen.cwd).toBe('/sandbox');
    expect(seen.here).toEqual(['main.py']);
    expect(seen.uid).toBe(60000 + SLOT);
    expect(seen.nnp).toBe('1');
    expect(seen.capeff).toBe('0000000000000000');
    expect(seen.procs).toEqual(['1']); // its own pid namespace: no host process is visible
    // Only what bwrap sets (plus PWD from --chdir and LC_CTYPE from Python's own C-locale coercion): no host variable.
    expect(Object.keys(seen.env).sort()).toEqual(['HOME', 'LC_CTYPE', 'PATH', 'PWD']);
    expect(seen.env).toMatchObject({ PATH: '/usr/bin', HOME: '/sandbox', PWD: '/sandbox' });
  });

  it('kills an infinite loop at the wall-clock limit without stalling the calling process', async () => {
    const { value: r, ticks, ms } = await withTicks(() => run('while True: pass', { limits: { wallSeconds: 2, cpuSeconds: 10 } }));
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(ms).toBeLessThan(6000);
    expect(ticks).toBeGreaterThan(10); // ~40 expected at 50 ms; the event loop kept running
    expectNoSurvivors();
  });

  it('kills a CPU hog at the CPU limit, before the wall-clock limit', async () => {
    const r = await run('while True: pass', { limits: { wallSeconds: 20, cpuSeconds: 1 } });
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBe('SIGKILL');
    expect(r.durationMs).toBeLessThan(10_000);
    expectNoSurvivors();
  });

  it('kills a sleeper that uses no CPU at the wall-clock limit', async () => {
    const r = await run('import time\ntime.sleep(60)', { limits: { wallSeconds: 1.5 } });
    expect(r.timedOut).toBe(true);
    expectNoSurvivors();
  });

  it('contains a fork bomb: capped by RLIMIT_NPROC, and no process of the slot survives the run', async () => {
    const { value: r, ticks } = await withTicks(() =>
      run(
        'import os, time\n' +
          'n = 0\n' +
          'while True:\n' +
          '    try:\n' +
          '        if os.fork() == 0:\n' +
          '            os.setsid() if hasattr(os, "setsid") else None\n' +
          '        n += 1\n' +
          '    except OSError:\n' +
          '        time.sleep(0.01)\n',
        { limits: { wallSeconds: 3, cpuSeconds: 30, processes: 32 } },
      ),
    );
    expect(r.timedOut).toBe(true);
    expect(ticks).toBeGreaterThan(10);
    expectNoSurvivors(); // no wait: the kernel has reaped the namespace before bwrap exits
  });

  it('turns a huge allocation into MemoryError, not a host problem', async () => {
    const before = os.freemem();
    const r = await run('x = bytearray(64 * 1024**3)');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('MemoryError');
    const r2 = await run('x = [0] * 10**10');
    expect(r2.exitCode).not.toBe(0);
    expect(r2.stderr).toContain('MemoryError');
    expect(os.freemem()).toBeGreaterThan(before / 2);
  });

  it('caps file sizes and the private /tmp', async () => {
    const r = await run(
      'import errno\n' +
        'try:\n' +
        '    open("/tmp/big", "wb").write(b"x" * (50 * 1024 * 1024))\n' +
        '    print("wrote 50 MB")\n' +
        'except OSError as e:\n' +
        '    print("fsize", e.errno)\n' +
        'n = 0\n' +
        'try:\n' +
        '    for i in range(1000):\n' +
        '        open("/tmp/f%d" % i, "wb").write(b"x" * (1024 * 1024)); n += 1\n' +
        'except OSError as e:\n' +
        '    print("tmp full after", n, "MiB", e.errno)\n',
      { limits: { fileSizeBytes: 10 * 1024 * 1024, tmpBytes: 16 * 1024 * 1024 } },
    );
    expect(r.stdout).not.toContain('wrote 50 MB');
    expect(r.stdout).toMatch(/tmp full after (\d+) MiB/);
    expect(Number(/tmp full after (\d+)/.exec(r.stdout)![1])).toBeLessThanOrEqual(16);
  });

  it('cannot write outside its directory: host /tmp, /usr, the project, the run directories, its own read-only dir', async () => {
    const marker = `sbx-escape-${process.pid}-${Date.now()}`;
    const targets = [path.join(os.tmpdir(), marker), `/usr/${marker}`, `/usr/lib/${marker}`, path.join(PROJECT_ROOT, marker), path.join(os.tmpdir(), 'collab-loop-sandbox', marker), `/root/${marker}`, `/var/tmp/${marker}`, `/dev/shm/${marker}`, `/${marker}`, `/etc/${marker}`];
    const inside = [...targets, `/sandbox/${marker}`, `/proc/${marker}`, `/dev/${marker}`];
    const r = await run(
      `import json, os\nres = {}\nfor p in ${JSON.stringify(inside)}:\n` +
        '    try:\n' +
        '        os.makedirs(os.path.dirname(p), exist_ok=True)\n' +
        '        open(p, "w").write("escaped")\n' +
        '        res[p] = "wrote"\n' +
        '    except OSError as e:\n' +
        '        res[p] = e.strerror\n' +
        'print(json.dumps(res))\n',
    );
    const res = JSON.parse(r.stdout) as Record<string, string>;
    // The writes that "succeed" land in the sandbox's private tmpfs (/tmp, /dev/shm) or in directories it
    // created inside it; none may appear on the host.
    for (const t of targets) expect(existsSync(t), `${t} appeared on the host`).toBe(false);
    expect(res[`/sandbox/${marker}`]).toBe('Read-only file system');
    expect(res[`/usr/${marker}`]).toBe('Read-only file system');
  });

  it('writes to its directory only when asked, and the caller can read the result back', async () => {
    const r = await run('open("/sandbox/out.txt", "w").write("result")\n', { writable: true, readBack: ['out.txt', 'missing.txt'] });
    expect(r.exitCode).toBe(0);
    expect(r.files['out.txt'].toString()).toBe('result');
    expect(r.files['missing.txt']).toBeUndefined();
  });

  it('reaches no network: a TCP server on the host receives no connection', async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const hostAddrs = Object.values(os.networkInterfaces()).flat().filter((a) => a && a.family === 'IPv4').map((a) => a!.address);
    try {
      const r = await run(
        `import socket, json\nres = {}\nfor host in ${JSON.stringify(['127.0.0.1', 'localhost', ...hostAddrs])}:\n` +
          '    try:\n' +
          `        socket.create_connection((host, ${port}), timeout=2).close()\n` +
          '        res[host] = "connected"\n' +
          '    except OSError as e:\n' +
          '        res[host] = str(e)\n' +
          'try:\n' +
          '    socket.getaddrinfo("deb.debian.org", 80)\n' +
          '    res["dns"] = "resolved"\n' +
          'except OSError as e:\n' +
          '    res["dns"] = str(e)\n' +
          'print(json.dumps(res))\n',
      );
      const res = JSON.parse(r.stdout) as Record<string, string>;
      for (const [host, outcome] of Object.entries(res)) expect(outcome, host).not.toMatch(/connected|resolved/);
      await new Promise((r) => setTimeout(r, 200));
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
  });

  it('truncates an output flood and ends the run there', async () => {
    const r = await run('import sys\nwhile True:\n    sys.stdout.write("x" * 65536)\n', { limits: { outputBytes: 256 * 1024, wallSeconds: 20 } });
    expect(r.truncated).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(r.stdout.length).toBe(256 * 1024);
    expect(r.durationMs).toBeLessThan(10_000);
    expectNoSurvivors();
    const e = await run('import sys\nwhile True:\n    sys.stderr.write("y" * 65536)\n', { limits: { outputBytes: 64 * 1024 } });
    expect(e.truncated).toBe(true);
    expect(e.stderr.length).toBe(64 * 1024);
  });

  it('survives crashes of the code: os.abort(), a segfault through ctypes', async () => {
    const a = await run('import os\nos.abort()');
    expect(a.exitCode).toBeNull();
    expect(a.signal).not.toBeNull();
    const s = await run('import ctypes\nctypes.string_at(0)');
    expect(s.exitCode).toBeNull();
    expect(s.signal).toBe('SIGSEGV');
    // and the sandbox still works afterwards
    expect((await run('print(6 * 7)')).stdout).toBe('42\n');
    expectNoSurvivors();
  });

  it('keeps two concurrent runs apart: one cannot find the other\'s files', async () => {
    const secret = `other-task-secret-${Math.random().toString(36).slice(2)}`;
    const holder = runSandboxedPython({
      files: { 'main.py': 'import time\ntime.sleep(3)\nprint(open("secret.txt").read())', 'secret.txt': secret },
      script: 'main.py',
      slot: SLOT + 1,
    });
    await new Promise((r) => setTimeout(r, 300));
    const seeker = await runSandboxedPython({ files: { 'main.py': seekerProgram(secret) }, script: 'main.py', slot: SLOT + 2, limits: { wallSeconds: 8 } });
    expect((await holder).stdout.trim()).toBe(secret);
    expect(seeker.stdout).toContain('scanned');
    expect(seeker.stdout).not.toContain('FOUND');
    // Positive control: the same seeker does find the secret where it is allowed to look.
    const control = await runSandboxedPython({ files: { 'main.py': seekerProgram(secret), 'data/secret.txt': secret }, script: 'main.py', slot: SLOT + 2, limits: { wallSeconds: 8 } });
    expect(control.stdout).toContain('FOUND /sandbox/data/secret.txt');
  });

  it('removes its directory after every run, whatever happened', { timeout: 60_000 }, async () => {
    const base = path.join(os.tmpdir(), 'collab-loop-sandbox');
    const before = new Set(readdirSync(base));
    await run('print(1)');
    await run('while True: pass', { limits: { wallSeconds: 1 } });
    await run('open("/sandbox/x", "w").write("y")', { writable: true });
    // Other test files may be running sandboxes at the same time: every directory that appeared meanwhile must
    // be gone once those runs end too (the longest run in this suite lasts under 20 s).
    const deadline = Date.now() + 30_000;
    let left = readdirSync(base).filter((d) => !before.has(d));
    while (left.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      left = left.filter((d) => existsSync(path.join(base, d)));
    }
    expect(left).toEqual([]);
  });

  it('passes no descriptor beyond stdin, stdout and stderr into the sandbox', async () => {
    const r = await run('import os\nprint(sorted(int(f) for f in os.listdir("/proc/self/fd")))');
    const fds = JSON.parse(r.stdout) as number[];
    expect(fds.filter((fd) => fd > 3)).toEqual([]); // 3 is listdir's own handle
  });

  it('uses the documented command line', () => {
    const cmd = sandboxCommand({ dir: '/tmp/d', script: 'main.py', uid: 60100, writable: false, limits: { ...DEFAULT_SANDBOX_LIMITS }, isolation: 'bwrap' });
    expect(cmd.uid).toBe(60100);
    expect(cmd.argv.slice(0, 8)).toEqual(['/usr/bin/prlimit', '--as=536870912', '--cpu=5', '--nproc=64', '--fsize=10485760', '--nofile=64', '--core=0', '--']);
    expect(cmd.argv).toEqual(expect.arrayContaining(['/usr/bin/bwrap', '--unshare-all', '--die-with-parent', '--new-session', '--clearenv']));
    const py = cmd.argv.indexOf('/usr/bin/python3');
    expect(cmd.argv.slice(py, py + 5)).toEqual(['/usr/bin/python3', '-I', '-S', '-B', '-c']);
    expect(cmd.argv.at(-1)).toBe('/sandbox/main.py');
  });
});

describe('runSandboxedPython leaves no trace of a test', () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'sbx-test-'));
    writeFileSync(path.join(scratch, 'host-secret.txt'), 'host-only');
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('cannot read a host file outside /usr, even a world-readable one', async () => {
    const r = await run(`try:\n    print(open(${JSON.stringify(path.join(scratch, 'host-secret.txt'))}).read())\nexcept OSError as e:\n    print("denied", e.strerror)`);
    expect(r.stdout).not.toContain('host-only');
    expect(r.stdout).toContain('denied');
  });
});
