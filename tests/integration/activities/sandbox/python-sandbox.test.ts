// Containment of untrusted Python by runSandboxedPython (bubblewrap). Each abuse case fails this file if the code
// gets out: the host must not see its files, connections, processes or load. Slots 100-119 belong to this file
// (test files run two at a time; a slot is a uid, and RLIMIT_NPROC counts per uid).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processesOfSlot, runSandboxedPython, sandboxCommand, DEFAULT_SANDBOX_LIMITS } from '../../../../activities/sandbox/python-sandbox';
import { PROJECT_ROOT } from '../../../../activities/subprocess/node-script';
import { seekerProgram } from '../../../helpers/sandbox-seeker';
import { expectedPackages, PACKAGES_PROBE } from '../../../helpers/sandbox-packages-probe';
import { runDirsOf, startHeldRun, WAIT_FOR_RELEASE } from '../../../helpers/sandbox-held-run';
import { watchConnections } from '../../../helpers/connections';

const SLOT = 100;
const run = (code: string, extra: Partial<Parameters<typeof runSandboxedPython>[0]> = {}) =>
  runSandboxedPython({ files: { 'main.py': code }, script: 'main.py', slot: SLOT, ...extra });

function expectNoSurvivors(slot = SLOT): void {
  expect(processesOfSlot(slot)).toEqual([]);
}

describe('runSandboxedPython (bwrap)', () => {
  it('runs code and reports how it ended', async () => {
    const r = await run('import sys\nprint("out"); print("err", file=sys.stderr); sys.exit(3)');
    expect(r).toMatchObject({
      exitCode: 3,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      timedOut: false,
      truncated: false,
      isolation: 'bwrap',
    });
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
    expect(seen.root).toEqual(
      ['bin', 'dev', 'lib', 'lib64', 'proc', 'sandbox', 'tmp', 'usr'].filter((d) => d !== 'lib64' || existsSync('/lib64')),
    );
    expect(seen.cwd).toBe('/sandbox');
    expect(seen.here).toEqual(['main.py']);
    expect(seen.uid).toBe(60000 + SLOT);
    expect(seen.nnp).toBe('1');
    expect(seen.capeff).toBe('0000000000000000');
    expect(seen.procs).toEqual(['1']); // its own pid namespace: no host process is visible
    // Only what bwrap sets (plus PWD from --chdir): no host variable. Python adds LC_CTYPE itself when it coerces
    // the C locale (PEP 538), which it does only if the machine has one of these locales.
    const { LC_CTYPE: coerced, ...env } = seen.env as Record<string, string>;
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/sandbox',
      PWD: '/sandbox',
      OPENBLAS_NUM_THREADS: '1', // numpy's BLAS must not start a thread per host core (RLIMIT_NPROC, RLIMIT_AS)
      OMP_NUM_THREADS: '1',
      MKL_NUM_THREADS: '1',
    });
    if (coerced !== undefined) expect(['C.UTF-8', 'C.utf8', 'UTF-8']).toContain(coerced);
  });

  it('imports its pinned packages (numpy, pandas) from a read-only directory after the standard library', async () => {
    const r = await run(PACKAGES_PROBE);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expectedPackages());
  });

  it('kills an infinite loop at the wall-clock limit', async () => {
    const r = await run('while True: pass', { limits: { wallSeconds: 2, cpuSeconds: 10 } });
    expect(r.timedOut).toBe(true);
    expect(r.signal).toBe('SIGKILL');
    expect(r.durationMs).toBeGreaterThanOrEqual(1900); // not before its limit (a lower bound: a slow machine only adds)
    expectNoSurvivors();
  });

  it('keeps the calling process responsive while the code runs', async () => {
    // The run ends only when this process writes the release file, which it can do only if its event loop runs
    // while the run is in flight. A blocking runner would hold the loop until the wall limit killed the code.
    const held = await startHeldRun({ files: { 'main.py': `${WAIT_FOR_RELEASE}print("released")\n` }, script: 'main.py', slot: SLOT });
    held.release();
    const r = await held.result;
    expect(r).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'released\n' });
    expectNoSurvivors();
  });

  it('kills a CPU hog at the CPU limit, before the wall-clock limit', async () => {
    // timedOut false: the wall limit never fired, so the CPU limit did the killing (however slow the machine).
    const r = await run('while True: pass', { limits: { wallSeconds: 120, cpuSeconds: 1 } });
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBe('SIGKILL');
    expectNoSurvivors();
  });

  it('kills a sleeper that uses no CPU at the wall-clock limit', async () => {
    const r = await run('import time\ntime.sleep(60)', { limits: { wallSeconds: 1.5 } });
    expect(r.timedOut).toBe(true);
    expectNoSurvivors();
  });

  it('contains a fork bomb: capped by RLIMIT_NPROC, and no process of the slot survives the run', async () => {
    // Every process forks for ever. The first fork refused to the sandbox's pid 1 proves the cap; pid 1 then
    // exits with the bomb still going, and the kernel must take every other process of the namespace with it.
    const r = await run(
      'import os, time\n' +
        'n = 0\n' +
        'while True:\n' +
        '    try:\n' +
        '        if os.fork() == 0:\n' +
        '            os.setsid() if hasattr(os, "setsid") else None\n' +
        '        n += 1\n' +
        '    except OSError as e:\n' +
        '        if os.getpid() == 1:\n' +
        '            print("capped after", n, "forks:", e.strerror, flush=True)\n' +
        '            os._exit(0)\n' +
        '        time.sleep(0.01)\n',
      { limits: { wallSeconds: 120, cpuSeconds: 30, processes: 32 } },
    );
    expect(r).toMatchObject({ exitCode: 0, timedOut: false });
    const m = /^capped after (\d+) forks: Resource temporarily unavailable\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(32);
    expectNoSurvivors(); // no wait: the kernel has reaped the namespace before bwrap exits
  });

  it('turns a huge allocation into MemoryError, not a host problem', async () => {
    const r = await run('x = bytearray(64 * 1024**3)');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('MemoryError');
    const r2 = await run('x = [0] * 10**10');
    expect(r2.exitCode).not.toBe(0);
    expect(r2.stderr).toContain('MemoryError');
    // 1 GiB is what a host grants lazily (overcommit): refused here, by the sandbox's 512 MiB address-space cap, and
    // the code's own peak resident memory (not the host's free memory, which other processes move) stays under it.
    const r3 = await run(
      'import resource\ntry:\n    x = bytearray(1024**3)\n    print("allocated")\nexcept MemoryError:\n' +
        '    print("MemoryError", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n',
    );
    const m = /^MemoryError (\d+)\n$/.exec(r3.stdout);
    expect(m, r3.stdout).not.toBeNull();
    expect(Number(m![1]) * 1024).toBeLessThan(DEFAULT_SANDBOX_LIMITS.memoryBytes);
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
    const targets = [
      path.join(os.tmpdir(), marker),
      `/usr/${marker}`,
      `/usr/lib/${marker}`,
      path.join(PROJECT_ROOT, marker),
      path.join(os.tmpdir(), 'collab-loop-sandbox', marker),
      `/root/${marker}`,
      `/var/tmp/${marker}`,
      `/dev/shm/${marker}`,
      `/${marker}`,
      `/etc/${marker}`,
    ];
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
    const server = net.createServer((s) => s.destroy());
    const connections = watchConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const hostAddrs = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a && a.family === 'IPv4')
      .map((a) => a!.address);
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
      await connections.settle(); // the run is over: whatever it connected has been accepted by now
      expect(connections.count()).toBe(0);
    } finally {
      server.close();
    }
  });

  it('truncates an output flood and ends the run there', async () => {
    const r = await run('import sys\nwhile True:\n    sys.stdout.write("x" * 65536)\n', {
      limits: { outputBytes: 256 * 1024, wallSeconds: 120 },
    });
    expect(r.truncated).toBe(true);
    expect(r.timedOut).toBe(false); // ended by the flood, not by the wall limit
    expect(r.stdout.length).toBe(256 * 1024);
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

  it("keeps two concurrent runs apart: one cannot find the other's files", async () => {
    const secret = `other-task-secret-${Math.random().toString(36).slice(2)}`;
    // The holder stays in its sandbox, its secret on disk, until the seeker is done: the two runs overlap for sure.
    const holder = await startHeldRun({
      files: { 'main.py': `${WAIT_FOR_RELEASE}print(open("secret.txt").read())`, 'secret.txt': secret },
      script: 'main.py',
      slot: SLOT + 1,
    });
    const seekLimits = { wallSeconds: 120, cpuSeconds: 120 }; // a full scan, however slow the machine
    const seeker = await runSandboxedPython({
      files: { 'main.py': seekerProgram(secret) },
      script: 'main.py',
      slot: SLOT + 2,
      limits: seekLimits,
    });
    holder.release();
    expect((await holder.result).stdout.trim()).toBe(secret);
    expect(seeker.stdout).toContain('scanned');
    expect(seeker.stdout).not.toContain('FOUND');
    // Positive control: the same seeker does find the secret where it is allowed to look.
    const control = await runSandboxedPython({
      files: { 'main.py': seekerProgram(secret), 'data/secret.txt': secret },
      script: 'main.py',
      slot: SLOT + 2,
      limits: seekLimits,
    });
    expect(control.stdout).toContain('FOUND /sandbox/data/secret.txt');
  });

  it('removes its directory after every run, whatever happened', async () => {
    // A run's directory carries its slot's gid, so this file's directories are told apart from those of other test
    // files running sandboxes at the same time. Positive control: the directory of a live run is seen.
    // (A worker killed mid-run, say by an aborted earlier test run, leaves one behind: not this test's business.)
    const leftovers = new Set(runDirsOf(SLOT));
    const ours = () => runDirsOf(SLOT).filter((d) => !leftovers.has(d));
    const held = await startHeldRun({ files: { 'main.py': WAIT_FOR_RELEASE }, script: 'main.py', slot: SLOT });
    expect(ours()).toEqual([held.dir]);
    held.release();
    await held.result;
    expect(ours()).toEqual([]);
    await run('print(1)');
    expect(ours()).toEqual([]);
    expect((await run('while True: pass', { limits: { wallSeconds: 1 } })).timedOut).toBe(true);
    expect(ours()).toEqual([]);
    await run('open("/sandbox/x", "w").write("y")', { writable: true });
    expect(ours()).toEqual([]);
  });

  it('passes no descriptor beyond stdin, stdout and stderr into the sandbox', async () => {
    const r = await run('import os\nprint(sorted(int(f) for f in os.listdir("/proc/self/fd")))');
    const fds = JSON.parse(r.stdout) as number[];
    expect(fds.filter((fd) => fd > 3)).toEqual([]); // 3 is listdir's own handle
  });

  it('uses the documented command line', () => {
    const cmd = sandboxCommand({
      dir: '/tmp/d',
      script: 'main.py',
      uid: 60100,
      writable: false,
      limits: { ...DEFAULT_SANDBOX_LIMITS },
      isolation: 'bwrap',
    });
    expect(cmd.uid).toBe(60100);
    expect(cmd.argv.slice(0, 8)).toEqual([
      '/usr/bin/prlimit',
      '--as=536870912',
      '--cpu=5',
      '--nproc=64',
      '--fsize=10485760',
      '--nofile=64',
      '--core=0',
      '--',
    ]);
    expect(cmd.argv).toEqual(
      expect.arrayContaining(['/usr/bin/bwrap', '--unshare-all', '--die-with-parent', '--new-session', '--clearenv']),
    );
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
    const r = await run(
      `try:\n    print(open(${JSON.stringify(path.join(scratch, 'host-secret.txt'))}).read())\nexcept OSError as e:\n    print("denied", e.strerror)`,
    );
    expect(r.stdout).not.toContain('host-only');
    expect(r.stdout).toContain('denied');
  });
});
