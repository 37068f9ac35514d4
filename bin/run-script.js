#!/usr/bin/env node
// `node bin/run-script.js <script.ts> [args…]`: runs one of the project's TypeScript scripts (the simulator, the
// stand-in trainer, a stage's helper) from its kept build (bin/kept-build.js), as `node --import tsx <script.ts>`
// would, with the script's own path in process.argv[1].
import path from 'node:path';
import { importEntry, PROJECT } from './kept-build.js';

const script = process.argv[2];
if (!script) {
  console.error('usage: node bin/run-script.js <script.ts> [args…]');
  process.exit(2);
}
process.argv.splice(1, 2, path.resolve(script));
await importEntry(path.relative(PROJECT, path.resolve(script)));
