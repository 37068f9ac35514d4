// What a kept build was made from, and whether it still is: the sha256 of every file it read and the listing of
// every folder those sit in (a new file there could change what an import resolves to: `./shape` meaning shape.ts
// instead of shape/index.ts). The entry points' builds (bin/kept-build.js) and the workflow bundle
// (workers/workflow-bundle.ts) are reused only while all of it is unchanged, so a stale build is never run.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The sha256 of `file`, or undefined when it cannot be read. */
export const hashFile = (file) => {
  try {
    return sha256(readFileSync(file));
  } catch {
    return undefined;
  }
};
const listing = (dir) => {
  try {
    return sha256(readdirSync(dir).sort().join('\n'));
  } catch {
    return undefined;
  }
};

/** The record of `files` (absolute paths) as they are now. */
export function sourcesOf(files) {
  return {
    files: Object.fromEntries(files.map((f) => [f, hashFile(f)])),
    dirs: Object.fromEntries([...new Set(files.map((f) => path.dirname(f)))].map((d) => [d, listing(d)])),
  };
}

/** Whether every file and folder of a record is as it was. */
export function sourcesUnchanged({ files, dirs }) {
  return Object.entries(files).every(([f, h]) => hashFile(f) === h) && Object.entries(dirs).every(([d, h]) => listing(d) === h);
}

/** Writes `file` whole or not at all: processes starting together never read half of it. */
export function writeAtomic(file, text) {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
