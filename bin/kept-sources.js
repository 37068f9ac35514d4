// What a kept build was made from, and whether it still is: the sha256 of every file it read and the listing of
// every folder those sit in (a new file there could change what an import resolves to: `./shape` meaning shape.ts
// instead of shape/index.ts). The entry points' builds (bin/kept-build.js) and the workflow bundle
// (workers/workflow-bundle.ts) are reused only while all of it is unchanged, so a stale build is never run.
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

const isFile = (p) => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};

/** The record of `files` (absolute paths; folders among them are left out). `read`: the hash of a file's text as
 *  the build read it, which is what the record must hold if the file changed while the build ran. */
export function sourcesOf(files, read = new Map()) {
  const regular = files.filter(isFile);
  return {
    files: Object.fromEntries(regular.map((f) => [f, read.get(f) ?? hashFile(f)])),
    dirs: Object.fromEntries([...new Set(regular.map((f) => path.dirname(f)))].map((d) => [d, listing(d)])),
  };
}

/** Whether every file and folder of a record is as it was. */
const sourcesUnchanged = ({ files, dirs }) =>
  Object.entries(files).every(([f, h]) => hashFile(f) === h) && Object.entries(dirs).every(([d, h]) => listing(d) === h);

/** The record kept in `file` ({ key, sources, … }) if it was made under `key` and its sources are unchanged; else
 *  undefined: none yet, unreadable, stale, or written by an older version of this code. */
export function freshRecord(file, key) {
  let kept;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  return kept?.key === key && kept.sources && sourcesUnchanged(kept.sources) ? kept : undefined;
}

/** A name beside `file` no other process (on this host or in another container) writes to. */
export const tempName = (file) => `${file}.${randomUUID()}.tmp`;

/** Writes `file` whole or not at all: processes starting together never read half of it. */
export function writeAtomic(file, text) {
  const tmp = tempName(file);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
}
