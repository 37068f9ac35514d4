// What a run left running on this machine, read from /proc (proc(5)): the processes whose argv names a marker (a
// test's private state dir), and the TCP ports in LISTEN state — by process (its socket inodes) or by number.
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface HostProcess {
  pid: number;
  argv: string[];
}

/** Processes whose command line contains `marker`, except `exclude` (e.g. the worker given --state-dir). */
export function processesWith(marker: string, exclude: number[] = []): HostProcess[] {
  const out: HostProcess[] = [];
  for (const d of readdirSync('/proc')) {
    const pid = Number(d);
    if (!Number.isInteger(pid) || pid === process.pid || exclude.includes(pid)) continue;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (argv.some((a) => a.includes(marker))) out.push({ pid, argv });
    } catch {
      /* exited while we looked */
    }
  }
  return out;
}

/** The processes of process group `pgid` (stat field 5, proc(5)), whatever they renamed themselves to: vLLM's engine
 *  core retitles itself "VLLM::EngineCore", so a marker in its argv cannot find it. */
export function groupMembers(pgid: number): HostProcess[] {
  const out: HostProcess[] = [];
  for (const d of readdirSync('/proc')) {
    const pid = Number(d);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      out.push({ pid, argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      /* exited while we looked */
    }
  }
  return out;
}

/** inode → port of every listening TCP socket on this host. */
function listeningSockets(): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!existsSync(f)) continue;
    for (const line of readFileSync(f, 'utf8').trim().split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] !== '0A') continue; // TCP_LISTEN
      out.set(cols[9], Number.parseInt(cols[1].split(':')[1], 16));
    }
  }
  return out;
}

/** The ports the given processes listen on. */
export function portsListenedBy(pids: number[]): number[] {
  const sockets = listeningSockets();
  const ports = new Set<number>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        const port = m && sockets.get(m[1]);
        if (port) ports.add(port);
      }
    } catch {
      /* exited while we looked */
    }
  }
  return [...ports];
}

/** Which of `ports` some process on this host still listens on. */
export function stillListening(ports: number[]): number[] {
  const open = new Set(listeningSockets().values());
  return ports.filter((p) => open.has(p));
}

/** Samples the marker's processes and their ports until stopped: everything the run started, however briefly. */
export function watchProcesses(marker: string, exclude: () => number[] = () => []) {
  const pids = new Set<number>();
  const ports = new Set<number>();
  const timer = setInterval(() => {
    const now = processesWith(marker, exclude());
    for (const p of now) pids.add(p.pid);
    for (const port of portsListenedBy(now.map((p) => p.pid))) ports.add(port);
  }, 100);
  return {
    seen: () => ({ pids: [...pids], ports: [...ports] }),
    stop: () => clearInterval(timer),
  };
}
