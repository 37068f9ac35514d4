// The fallback used when bubblewrap is not installed (`unshare` + prlimit + setpriv, as root). It guarantees less
// than bwrap (the host filesystem stays readable as far as permissions allow, and the host /tmp writable), so
// this file checks what it does promise: limits, no network, no stray processes, runs kept apart, and scoring.
// Slots 140-149 belong to this file.
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCodeTests } from '../../../../activities/sandbox/code-tests';
import { processesOfSlot, runSandboxedPython } from '../../../../activities/sandbox/python-sandbox';
import { seekerProgram } from '../../../helpers/sandbox-seeker';
import { expectedPackages, PACKAGES_PROBE } from '../../../helpers/sandbox-packages-probe';
import { startHeldRun, WAIT_FOR_RELEASE } from '../../../helpers/sandbox-held-run';
import { watchConnections } from '../../../helpers/connections';

const SLOT = 140;
const run = (code: string, extra: Partial<Parameters<typeof runSandboxedPython>[0]> = {}) =>
  runSandboxedPython({ files: { 'main.py': code }, script: 'main.py', slot: SLOT, isolation: 'unshare', ...extra });

describe('runSandboxedPython (unshare fallback)', () => {
  it("runs as the slot's uid in its own pid namespace, without privileges", async () => {
    const r = await run(
      'import os\nst = open("/proc/self/status").read()\nprint(os.getuid(), os.getpid(), "NoNewPrivs:\\t1" in st, sorted(p for p in os.listdir("/proc") if p.isdigit()))',
    );
    expect(r.isolation).toBe('unshare');
    expect(r.stdout.trim()).toBe(`${60000 + SLOT} 1 True ['1']`);
  });

  it('imports the same pinned packages, read-only', async () => {
    const r = await run(PACKAGES_PROBE);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual(expectedPackages());
  });

  it('kills a loop at the wall-clock limit and leaves no process of the slot', async () => {
    const r = await run('while True: pass', { limits: { wallSeconds: 1.5, cpuSeconds: 10 } });
    expect(r.timedOut).toBe(true);
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it('contains a fork bomb', async () => {
    const r = await run('import os\nwhile True:\n    try: os.fork()\n    except OSError: pass\n', {
      limits: { wallSeconds: 2, cpuSeconds: 30, processes: 32 },
    });
    expect(r.timedOut).toBe(true);
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it('turns a huge allocation into MemoryError', async () => {
    const r = await run('x = bytearray(64 * 1024**3)');
    expect(r.stderr).toContain('MemoryError');
  });

  it('has no network: a host TCP server receives no connection', async () => {
    const server = net.createServer((s) => s.destroy());
    const connections = watchConnections(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const r = await run(
        `import socket\ntry:\n    socket.create_connection(("127.0.0.1", ${port}), timeout=2)\n    print("connected")\nexcept OSError as e:\n    print(e)`,
      );
      expect(r.stdout).not.toContain('connected');
      await connections.settle(); // the run is over: whatever it connected has been accepted by now
      expect(connections.count()).toBe(0);
    } finally {
      server.close();
    }
  });

  it('truncates an output flood and leaves no process behind', async () => {
    const r = await run('while True: print("x" * 10000)', { limits: { outputBytes: 100_000 } });
    expect(r.truncated).toBe(true);
    expect(r.stdout.length).toBe(100_000);
    expect(processesOfSlot(SLOT)).toEqual([]);
  });

  it('cannot write to its own directory unless asked', async () => {
    const r = await run('try:\n    open("out.txt", "w").write("x")\n    print("wrote")\nexcept OSError as e:\n    print(e.strerror)');
    expect(r.stdout.trim()).toBe('Permission denied');
    const w = await run('open("out.txt", "w").write("x")', { writable: true, readBack: ['out.txt'] });
    expect(w.files['out.txt'].toString()).toBe('x');
  });

  it("keeps two concurrent runs apart: one cannot read the other's directory", async () => {
    const secret = `fallback-secret-${Math.random().toString(36).slice(2)}`;
    // The holder stays alive, its secret on disk, until the seeker is done: the two runs overlap for sure.
    const holder = await startHeldRun({
      files: { 'main.py': `${WAIT_FOR_RELEASE}print(open("secret.txt").read())`, 'secret.txt': secret },
      script: 'main.py',
      slot: SLOT + 1,
      isolation: 'unshare',
    });
    const seeker = await run(seekerProgram(secret), { slot: SLOT + 2, limits: { wallSeconds: 120, cpuSeconds: 120 } });
    holder.release();
    expect((await holder.result).stdout.trim()).toBe(secret);
    expect(seeker.stdout).toMatch(/^scanned \d+ files/);
  });

  it('scores code the same way', async () => {
    const ref = 'def f(x):\n    return x * 2\n';
    const r = await runCodeTests({
      candidate: ref,
      reference: ref,
      testCases: { a: 'f(1)', b: 'f("ab")' },
      slot: SLOT,
      isolation: 'unshare',
    });
    expect(r).toMatchObject({ passed: 2, success: true });
    const liar = await runCodeTests({
      candidate: 'class Y:\n    def __eq__(s, o): return True\ndef f(x):\n    return Y()\n',
      reference: ref,
      testCases: { a: 'f(1)' },
      slot: SLOT,
      isolation: 'unshare',
    });
    expect(liar.passed).toBe(0);
  });
});
