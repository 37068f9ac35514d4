// The worker thread behind symbolic-equal.ts: owns the long-lived sympy process (./sympy_equal.py) and
// relays one request at a time. The caller's thread blocks on `signal` (Atomics.wait) until an answer — or the
// process's exit — is posted on `port`: that is what lets a synchronous grader ask an asynchronous process.
// Plain JavaScript: a worker thread does not inherit the tsx loader the rest of the project runs under.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parentPort, workerData } from 'node:worker_threads';

const { python, script, itemSeconds, signal, port } = workerData;
const child = spawn(python, [script, '--item-seconds', String(itemSeconds)], { stdio: ['pipe', 'pipe', 'pipe'] });
let stderr = '';
child.stderr.on('data', (d) => {
  stderr = (stderr + d).slice(-2000);
});
const post = (message) => {
  port.postMessage(message);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
};
createInterface({ input: child.stdout }).on('line', (line) => {
  try {
    post(JSON.parse(line));
  } catch {
    post({ fatal: `the sympy helper wrote a line that is not JSON: ${line.slice(0, 200)}` });
  }
});
child.on('error', (err) => post({ fatal: `cannot start ${python}: ${err.message}` }));
child.on('exit', (code, sig) => post({ fatal: `the sympy helper exited (${sig ?? `code ${code}`}): ${stderr.trim().slice(-500)}` }));
child.stdin.on('error', () => {}); // a dead helper is reported by 'exit'
parentPort.on('message', (request) => child.stdin.write(`${JSON.stringify(request)}\n`));
