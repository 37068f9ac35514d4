// A data build's rows written as they are made: each dataset (a role's sft, dpo or rl rows, or a recipe's extra one)
// goes to its own file, then into the artifact store as one JSONL artifact, so building data from a million
// conversations holds none of its rows in memory.
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ArtifactRef } from '../../contracts/artifact-ref';
import type { ArtifactStore } from '../artifacts/store';
import type { DataBuilder, RowSink } from '../recipes/types';
import type { HeldRows } from './held-rows';

/** What a streamed build made: its datasets by name (`<role>/<dataset>`, `extra/<name>`), counts, records read. */
export interface StreamedBuild {
  refs: Map<string, ArtifactRef>;
  counts: Record<string, number>;
  records: number;
}

/** A build over records read shard by shard from the store (`records`, in plan order), its rows written to files
 *  under `stateDir` as the builder makes them and then stored as artifacts. */
export async function buildToFiles<B>(
  store: ArtifactStore,
  stateDir: string,
  records: ArtifactRef[],
  builder: (sink: RowSink) => DataBuilder<B>,
): Promise<StreamedBuild> {
  const files = new DatasetFiles(path.join(stateDir, 'tmp'));
  try {
    const b = builder(files);
    const read = await store.forEachRow<B>(records, (r) => b.add(r));
    const counts = b.finish();
    return { refs: await files.store(store), counts, records: read };
  } finally {
    files.discard();
  }
}

/** Bytes gathered before one write(): few syscalls, little held. */
const FLUSH_BYTES = 1 << 20;

export class DatasetFiles implements RowSink {
  private readonly dir: string;
  private readonly open = new Map<string, { file: string; out: AppendFile; rows: number }>();
  private readonly heldFiles: AppendFile[] = [];

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

  /** Rows held in a file of their own beside the datasets, read back by handle. */
  held(): HeldRows {
    const out = new AppendFile(path.join(this.dir, `held-${this.heldFiles.length}.jsonl`), 'w+');
    this.heldFiles.push(out);
    return heldIn(out);
  }

  private write(name: string, line: string): void {
    let d = this.open.get(name);
    if (!d) {
      const file = path.join(this.dir, `${this.open.size}.jsonl`);
      this.open.set(name, (d = { file, out: new AppendFile(file, 'w'), rows: 0 }));
    }
    d.out.append(Buffer.from(`${line}\n`));
    d.rows++;
  }

  /** Every dataset as an artifact, by its name (`<role>/<dataset>`, `extra/<name>`). */
  async store(store: ArtifactStore): Promise<Map<string, ArtifactRef>> {
    const refs = new Map<string, ArtifactRef>();
    for (const d of this.open.values()) d.out.flush();
    for (const [name, d] of this.open) refs.set(name, await store.putFile(d.file, { ext: '.jsonl', rows: d.rows }));
    return refs;
  }

  /** Closes and removes the files (after `store`, or instead of it when the build failed). */
  discard(): void {
    for (const d of this.open.values()) d.out.close();
    for (const out of this.heldFiles.splice(0)) out.close();
    this.open.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A file written at its end through a buffer of FLUSH_BYTES; `append` says where the bytes start. */
class AppendFile {
  readonly fd: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0;

  constructor(file: string, flags: 'w' | 'w+') {
    this.fd = openSync(file, flags);
  }

  append(bytes: Buffer): number {
    const start = this.written + this.pendingBytes;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    return start;
  }

  flush(): void {
    if (!this.pendingBytes) return;
    const bytes = Buffer.concat(this.pending);
    // write() may take part of the bytes (a full disk fails with ENOSPC on the next try): every byte goes, or it throws.
    for (let at = 0; at < bytes.length; ) at += writeSync(this.fd, bytes, at, bytes.length - at, this.written + at);
    this.written += bytes.length;
    this.pending = [];
    this.pendingBytes = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Held rows in an AppendFile: each row's start and byte length in memory (16 bytes a row), its bytes on disk. */
function heldIn(out: AppendFile): HeldRows {
  const starts: number[] = [];
  const lengths: number[] = [];
  return {
    put(line) {
      const bytes = Buffer.from(line);
      starts.push(out.append(bytes));
      lengths.push(bytes.length);
      return starts.length - 1;
    },
    get(handle) {
      out.flush();
      const bytes = Buffer.allocUnsafe(lengths[handle]);
      for (let at = 0; at < bytes.length; ) {
        const n = readSync(out.fd, bytes, at, bytes.length - at, starts[handle] + at);
        if (n === 0) throw new Error(`held row ${handle}: its file ends before its ${bytes.length} bytes`);
        at += n;
      }
      return bytes.toString('utf8');
    },
  };
}
