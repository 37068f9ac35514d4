// Python that looks everywhere a sandboxed program might find another run's data: every file it can reach, /proc
// of every visible process (cwd, root, fds, environ, cmdline), the run directories on the host. The needle is
// given in two halves joined at run time, so that the seeker's own source never matches.
import os from 'node:os';
import path from 'node:path';

/** Defines `seek()` → (paths where the needle is, text around each hit, number of files read). */
export function seekerModule(needle: string): string {
  const half = Math.floor(needle.length / 2);
  const hostDirs = [os.tmpdir(), path.join(os.tmpdir(), 'collab-loop-sandbox'), '/work', '/root'];
  return `
import os as _os

def seek():
    needle = ${JSON.stringify(needle.slice(0, half))}.encode() + ${JSON.stringify(needle.slice(half))}.encode()
    seen = [0]
    found = []
    around = []
    def check(path):
        if seen[0] > 20000:
            return
        try:
            fd = _os.open(path, _os.O_RDONLY | _os.O_NONBLOCK)
            try:
                data = _os.read(fd, 1 << 20)
            finally:
                _os.close(fd)
            seen[0] += 1
            at = data.find(needle)
            if at >= 0:
                found.append(path)
                around.append(data[max(0, at - 200):at + 400].decode('utf-8', 'replace'))
        except Exception:
            pass
    roots = ['/sandbox', '/tmp', '/dev/shm'] + ${JSON.stringify(hostDirs)}
    for pid in _os.listdir('/proc'):
        if pid.isdigit():
            roots += ['/proc/%s/cwd' % pid, '/proc/%s/root/sandbox' % pid, '/proc/%s/root/tmp' % pid]
            for f in ('environ', 'cmdline'):
                check('/proc/%s/%s' % (pid, f))
            try:
                for fd in _os.listdir('/proc/%s/fd' % pid):
                    check('/proc/%s/fd/%s' % (pid, fd))
            except Exception:
                pass
    for base in ${JSON.stringify(hostDirs)}:
        try:
            roots += [_os.path.join(base, d) for d in _os.listdir(base)]
        except Exception:
            pass
    roots += ['/var', '/etc', '/opt', '/srv', '/mnt', '/home', '/run', '/']  # the rest of the filesystem last
    for root in roots:
        if seen[0] > 20000:
            break
        for dirpath, dirnames, filenames in _os.walk(root):
            if dirpath == '/':
                dirnames[:] = [d for d in dirnames if d not in ('usr', 'sys', 'proc', 'dev')]
            if dirpath.count('/') > 6:
                dirnames[:] = []
            dirnames[:] = [d for d in dirnames if d not in ('node_modules', '.venv', '.git')]
            for name in filenames[:2000]:
                check(_os.path.join(dirpath, name))
    return found, around, seen[0]
`;
}

/** A whole program: prints `FOUND <paths>` or `scanned N files`. */
export function seekerProgram(needle: string): string {
  return `${seekerModule(needle)}
found, around, seen = seek()
print('FOUND ' + ' '.join(found) if found else 'scanned %d files' % seen)
`;
}
