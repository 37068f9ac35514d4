// STAND-IN TRAINER — not a real trainer. This CPU machine has no GPU and no model weights, so the demo and the
// tests train "simulator checkpoints": the new checkpoint's simulated-policy.json gets a higher `skill` the more
// (correct) training rows it saw. Everything around it is real: it is a subprocess started from the config's
// command template, it prints step/loss lines that become heartbeats, saves intermediate checkpoints that a
// retry resumes from ({resume_from}), and dies with its process group on cancellation. Real trainers (TRL,
// fairseq2, OpenRLHF, verl) plug into the same `train.command` template.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { waitForPace } from '../activities/serving/pace-gate';
import { trainedSimulatedPolicy } from '../activities/serving/simulated-skill';

const { values: a } = parseArgs({
  options: {
    base: { type: 'string' },
    data: { type: 'string' },
    output: { type: 'string' },
    method: { type: 'string', default: 'sft' },
    steps: { type: 'string', default: '8' },
    'step-ms': { type: 'string', default: '100' },
    'resume-from': { type: 'string', default: '' },
    'spawn-child-pidfile': { type: 'string' },
    'fail-first': { type: 'string', default: '0' },
    'fail-marker': { type: 'string' },
    role: { type: 'string', default: '' },
    'fail-role': { type: 'string' },
    'hold-until': { type: 'string' },
    'step-gate': { type: 'string' },
    'survive-lost-output': { type: 'boolean', default: false },
    'save-every': { type: 'string', default: '4' },
    'crash-after-step': { type: 'string' },
  },
});

// Test hook: keep training when the reader of our output (the worker) is gone, as a GPU job whose logging swallows
// the broken pipe does, instead of dying of EPIPE at the next line: the orphan a worker killed with SIGKILL leaves.
if (a['survive-lost-output']) for (const s of [process.stdout, process.stderr]) s.on('error', () => {});

function die(msg: string): never {
  console.error(`stand-in-trainer: ${msg}`);
  process.exit(2);
}
if (!a.base || !a.data || !a.output) die('--base, --data and --output are required');

// Test hook: fail the first N attempts (counted in a marker file) to exercise retries and "needs attention" —
// of every run, or only of the model role --fail-role (given --role {role}).
if (a['fail-marker'] && (a['fail-role'] === undefined || a['fail-role'] === a.role)) {
  const n = existsSync(a['fail-marker']) ? Number(readFileSync(a['fail-marker'], 'utf8')) : 0;
  writeFileSync(a['fail-marker'], String(n + 1));
  if (n < Number(a['fail-first'])) {
    console.log(`step 0 loss 9.99`);
    die(`simulated crash (attempt ${n + 1})`);
  }
}

const basePolicyFile = path.join(a.base, 'simulated-policy.json');
if (!existsSync(basePolicyFile)) die(`base checkpoint ${a.base} has no simulated-policy.json`);
const base = JSON.parse(readFileSync(basePolicyFile, 'utf8')) as { skill: number; agreeability?: number };
const rows = readFileSync(a.data, 'utf8')
  .split('\n')
  .filter((l) => l.trim()).length;
const steps = Number(a.steps);

if (a['spawn-child-pidfile']) {
  // A grandchild in the same process group, like a torchrun worker: cancellation must kill it too.
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  writeFileSync(a['spawn-child-pidfile'], JSON.stringify({ trainer: process.pid, child: child.pid }));
}

// The GPUs the worker handed this trainer (activities/subprocess/gpu-pool.ts), for the train log.
if (process.env.CUDA_VISIBLE_DEVICES !== undefined) console.log(`CUDA_VISIBLE_DEVICES=${process.env.CUDA_VISIBLE_DEVICES}`);

let start = 0;
const resume = a['resume-from'];
if (resume && existsSync(resume)) {
  start = Number(/step-(\d+)$/.exec(resume)?.[1] ?? 0);
  console.log(`resuming from ${resume} at step ${start}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let loss = 2.5 * Math.exp(-start / Math.max(1, steps));
for (let step = start + 1; step <= steps; step++) {
  // Test hook: a step waits until the --step-gate file allows it (activities/serving/pace-gate.ts).
  await waitForPace(a['step-gate'], step);
  await sleep(Number(a['step-ms']));
  loss = 2.5 * Math.exp(-step / Math.max(1, steps)) + 0.01 * (rows % 7);
  console.log(`step ${step}/${steps} loss ${loss.toFixed(4)} rows ${rows}`);
  if (step % Number(a['save-every']) === 0 || step === steps) {
    const ck = path.join(`${a.output}.partial`, `step-${step}`);
    mkdirSync(ck, { recursive: true });
    writeFileSync(path.join(ck, 'state.json'), JSON.stringify({ step, loss }));
    console.log(`saved checkpoint: ${ck}`);
  }
  // Test hook: die right after this step (its checkpoint saved), as a trainer whose GPU failed; a run resumed at or
  // past it goes on.
  if (step === Number(a['crash-after-step'])) die(`simulated crash after step ${step}`);
}

// Test hook: after the last step, wait for a file before writing the checkpoint, so a test can make the trainer
// finish at a moment it chooses (e.g. while the Temporal server is down).
if (a['hold-until']) {
  console.log(`holding until ${a['hold-until']} exists`);
  while (!existsSync(a['hold-until'])) await sleep(100);
}

const next = trainedSimulatedPolicy(base, rows);
const tmp = `${a.output}.tmp`;
mkdirSync(tmp, { recursive: true });
writeFileSync(path.join(tmp, 'simulated-policy.json'), JSON.stringify(next, null, 2));
writeFileSync(
  path.join(tmp, 'STAND-IN-CHECKPOINT.txt'),
  `Written by scripts/stand-in-trainer.ts (${a.method}, ${rows} rows, ${steps} steps): not real weights.\n`,
);
renameSync(tmp, a.output);
console.log(`done: skill ${base.skill} -> ${next.skill} final loss ${loss.toFixed(4)}`);
