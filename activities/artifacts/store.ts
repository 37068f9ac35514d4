// Local-directory artifact store. Objects are content-addressed (sha256) and written with write-tmp + rename,
// so a worker killed mid-write never leaves a half file under a final name. Manifests (the lineage) are
// ordinary artifacts plus a human-readable pointer under runs/<run>/iter-<k>/<stage>.json.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import type { ArtifactRef } from './ref';

export interface StageManifest {
  run: string;
  iteration: number;
  stage: string;
  /** The model role a train manifest is for, when an iteration trains several. */
  role?: string;
  inputs: Record<string, ArtifactRef | string | number | null>;
  params: Record<string, unknown>;
  outputs: Record<string, unknown>;
  tokens?: { prompt: number; completion: number };
  codeVersion: string;
  createdAt: string;
}

export function writeFileAtomic(file: string, data: string | Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export class ArtifactStore {
  constructor(readonly root: string) {}

  put(data: string | Buffer, opts: { ext?: string; rows?: number } = {}): ArtifactRef {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    const sha256 = sha256Hex(buf);
    const file = path.join(this.root, 'objects', sha256.slice(0, 2), `${sha256}${opts.ext ?? ''}`);
    if (!existsSync(file)) writeFileAtomic(file, buf);
    return { uri: pathToFileURL(file).href, sha256, rows: opts.rows ?? 0, bytes: buf.length };
  }

  putJsonl(rows: unknown[]): ArtifactRef {
    const text = rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
    return this.put(text, { ext: '.jsonl', rows: rows.length });
  }

  putJson(value: unknown): ArtifactRef {
    return this.put(JSON.stringify(value, null, 2), { ext: '.json', rows: 1 });
  }

  static pathOf(ref: Pick<ArtifactRef, 'uri'>): string {
    return fileURLToPath(ref.uri);
  }

  readText(ref: ArtifactRef): string {
    const text = readFileSync(ArtifactStore.pathOf(ref));
    if (sha256Hex(text) !== ref.sha256) throw new Error(`artifact ${ref.uri} does not match its sha256 (corrupted store?)`);
    return text.toString('utf8');
  }

  readJsonl<T>(ref: ArtifactRef): T[] {
    return this.readText(ref)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as T);
  }

  readJson<T>(ref: ArtifactRef): T {
    return JSON.parse(this.readText(ref)) as T;
  }

  /** Records a stage's lineage; the pointer file makes it findable without Temporal. */
  writeManifest(manifest: StageManifest): ArtifactRef {
    const ref = this.putJson(manifest);
    const pointer = path.join(this.root, 'runs', manifest.run, `iter-${manifest.iteration}`, `${manifest.stage}.json`);
    writeFileAtomic(pointer, JSON.stringify({ manifest: ref, ...manifest }, null, 2));
    return ref;
  }

  runDir(run: string, iteration: number): string {
    return path.join(this.root, 'runs', run, `iter-${iteration}`);
  }
}
