// A data build's rows written as they are made: each dataset (a role's sft, dpo or rl rows, or a recipe's extra one)
// goes to its own file, then into the artifact store as one JSONL artifact, so building data from a million
// conversations holds none of its rows in memory.
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ArtifactRef } from '../../contracts/artifact-ref';
import type { ArtifactStore } from '../artifacts/store';
import type { RowSink } from '../recipes/types';

/** Bytes gathered before one write(): few syscalls, little held. */
const FLUSH_BYTES = 1 << 20;

interface OpenDataset {
  file: string;
  fd: number;
  rows: number;
  pending: string[];
  pendingBytes: number;
}

export class DatasetFiles implements RowSink {
  private readonly dir: string;
  private readonly open = new Map<string, OpenDataset>();

  /** @param parent where the files go: the worker's state dir (a tmpfs /tmp would hold the rows in memory) */
  constructor(parent: string) {
    mkdirSync(parent, { recursive: true });
    this.dir = mkdtempSync(path.join(parent, 'data-'));
  }

  row(role: string, dataset: string, line: string): void {
    this.write(`${role}/${dataset}`, line);
  }

  extra(name: string, line: string): void {
    this.write(`extra/${name}`, line);
  }

  private write(name: string, line: string): void {
    let d = this.open.get(name);
    if (!d) {
      const file = path.join(this.dir, `${this.open.size}.jsonl`);
      this.open.set(name, (d = { file, fd: openSync(file, 'w'), rows: 0, pending: [], pendingBytes: 0 }));
    }
    d.pending.push(line, '\n');
    d.pendingBytes += line.length + 1;
    d.rows++;
    if (d.pendingBytes >= FLUSH_BYTES) flush(d);
  }

  /** Every dataset as an artifact, by its name (`<role>/<dataset>`, `extra/<name>`). */
  async store(store: ArtifactStore): Promise<Map<string, ArtifactRef>> {
    const refs = new Map<string, ArtifactRef>();
    for (const d of this.open.values()) flush(d);
    for (const [name, d] of this.open) refs.set(name, await store.putFile(d.file, { ext: '.jsonl', rows: d.rows }));
    return refs;
  }

  /** Closes and removes the files (after `store`, or instead of it when the build failed). */
  discard(): void {
    for (const d of this.open.values()) closeSync(d.fd);
    this.open.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function flush(d: OpenDataset): void {
  if (!d.pending.length) return;
  const bytes = Buffer.from(d.pending.join(''));
  // write() may take part of the bytes (a full disk fails with ENOSPC on the next try): every byte goes, or it throws.
  for (let at = 0; at < bytes.length; ) at += writeSync(d.fd, bytes, at, bytes.length - at);
  d.pending = [];
  d.pendingBytes = 0;
}
