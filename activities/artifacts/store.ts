// Content-addressed artifact store over the run's ObjectStore (a local directory or an S3 bucket). Objects are
// named by their sha256, so a retried stage that writes the same bytes writes nothing new, and every read is
// checked against the hash its reference carries. Manifests (the lineage) are ordinary artifacts plus a
// human-readable pointer under artifacts/runs/<run>/iter-<k>/<stage>.json.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import type { ObjectStore } from '../storage/object-store';
import { tmpPathBeside } from '../storage/local-object-store';
import { sha256File, sha256Hex } from '../storage/content-hash';
import { localStateDir, objectStoreFor, type StorageOf } from '../storage/run-storage';
import type { ArtifactRef } from '../../contracts/artifact-ref';

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
  const tmp = tmpPathBeside(file);
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

const ARTIFACTS = 'artifacts';

/** The artifact's bytes, once they match the hash its reference carries. */
export function checked(ref: Pick<ArtifactRef, 'uri' | 'sha256'>, bytes: Buffer): Buffer {
  if (sha256Hex(bytes) !== ref.sha256) throw new Error(`artifact ${ref.uri} does not match its sha256 (corrupted store?)`);
  return bytes;
}

export function parseJsonl<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as T);
}

export class ArtifactStore {
  /**
   * @param objects where artifacts are kept
   * @param localDir this machine's state directory: artifacts a local program must read as files (trainer
   *   data, images) are fetched into <localDir>/artifacts when the store is remote
   */
  constructor(
    readonly objects: ObjectStore,
    readonly localDir: string,
  ) {}

  private static keyFor(sha256: string, ext = ''): string {
    return `${ARTIFACTS}/objects/${sha256.slice(0, 2)}/${sha256}${ext}`;
  }

  async put(data: string | Buffer, opts: { ext?: string; rows?: number } = {}): Promise<ArtifactRef> {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    const sha256 = sha256Hex(buf);
    const key = ArtifactStore.keyFor(sha256, opts.ext);
    if (!(await this.objects.exists(key))) await this.objects.put(key, buf);
    return { uri: this.objects.uriOf(key), sha256, rows: opts.rows ?? 0, bytes: buf.length };
  }

  /** A local file as an artifact, streamed: hashed and stored without holding it (a large dataset's rows). */
  async putFile(file: string, opts: { ext?: string; rows?: number } = {}): Promise<ArtifactRef> {
    const sha256 = await sha256File(file);
    const key = ArtifactStore.keyFor(sha256, opts.ext);
    if (!(await this.objects.exists(key))) await this.objects.putFile(key, file);
    return { uri: this.objects.uriOf(key), sha256, rows: opts.rows ?? 0, bytes: (await stat(file)).size };
  }

  putJsonl(rows: unknown[]): Promise<ArtifactRef> {
    const text = rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
    return this.put(text, { ext: '.jsonl', rows: rows.length });
  }

  putJson(value: unknown): Promise<ArtifactRef> {
    return this.put(JSON.stringify(value, null, 2), { ext: '.json', rows: 1 });
  }

  /** The artifact's bytes, checked against its hash. A file: URI is read where it is (references written before
   *  a run moved to object storage stay readable). */
  async readBytes(ref: Pick<ArtifactRef, 'uri' | 'sha256'>): Promise<Buffer> {
    return checked(ref, ref.uri.startsWith('file:') ? await readFile(fileURLToPath(ref.uri)) : await this.remote(ref.uri));
  }

  /** An artifact named only by its URI (records keep screenshot URIs): the hash is its file name. */
  readUri(uri: string): Promise<Buffer> {
    const sha256 = (uri.split('/').pop() ?? '').split('.')[0];
    return this.readBytes({ uri, sha256 });
  }

  private async remote(uri: string): Promise<Buffer> {
    const key = this.objects.keyOf(uri);
    if (key === undefined) throw new Error(`artifact ${uri} is not in this run's store (${this.objects.location})`);
    const bytes = await this.objects.get(key);
    if (!bytes) throw new Error(`artifact ${uri} is missing from ${this.objects.location}`);
    return bytes;
  }

  async readText(ref: ArtifactRef): Promise<string> {
    return (await this.readBytes(ref)).toString('utf8');
  }

  async readJsonl<T>(ref: ArtifactRef): Promise<T[]> {
    return parseJsonl<T>(await this.readText(ref));
  }

  /** The rows of several JSONL artifacts (a stage's shards), in order, one artifact read at a time and each row
   *  parsed as it is reached: what a stage that streams holds is one shard's bytes, not the stage's records. */
  async *eachRow<T>(refs: ArtifactRef[]): AsyncGenerator<T> {
    for (const ref of refs) {
      const bytes = await this.readBytes(ref);
      for (let start = 0; start < bytes.length; ) {
        const nl = bytes.indexOf(10, start);
        const end = nl === -1 ? bytes.length : nl;
        const line = bytes.toString('utf8', start, end);
        if (line.trim() !== '') yield JSON.parse(line) as T;
        start = end + 1;
      }
    }
  }

  /** Hands each row of several JSONL artifacts to `add`, as eachRow reads them; returns how many there were. */
  async forEachRow<T>(refs: ArtifactRef[], add: (row: T) => void): Promise<number> {
    let n = 0;
    for await (const row of this.eachRow<T>(refs)) {
      add(row);
      n++;
    }
    return n;
  }

  /** Every row of several JSONL artifacts (a stage's shards), in order. */
  async readJsonlAll<T>(refs: ArtifactRef[]): Promise<T[]> {
    return (await Promise.all(refs.map((r) => this.readJsonl<T>(r)))).flat();
  }

  async readJson<T>(ref: ArtifactRef): Promise<T> {
    return JSON.parse(await this.readText(ref)) as T;
  }

  /** A local file holding the artifact, for programs that read files (trainers, image tools): the object itself
   *  when the store is a local directory, else a verified copy fetched once into this machine's state dir. */
  async localPath(ref: Pick<ArtifactRef, 'uri' | 'sha256'>): Promise<string> {
    if (ref.uri.startsWith('file:')) return fileURLToPath(ref.uri);
    const name = ref.uri.split('/').pop() ?? ref.sha256;
    const file = path.join(this.localDir, ARTIFACTS, 'objects', ref.sha256.slice(0, 2), name);
    const have = await stat(file).then(
      () => true,
      () => false,
    );
    if (!have) writeFileAtomic(file, await this.readBytes(ref));
    return file;
  }

  /** Records a stage's lineage; the pointer makes it findable without Temporal. */
  async writeManifest(manifest: StageManifest): Promise<ArtifactRef> {
    const ref = await this.putJson(manifest);
    const pointer = `${ARTIFACTS}/runs/${manifest.run}/iter-${manifest.iteration}/${manifest.stage}.json`;
    await this.objects.put(pointer, JSON.stringify({ manifest: ref, ...manifest }, null, 2));
    return ref;
  }
}

/** The artifact store of the run a config describes (its storage: setting, this host's state dir). */
export function storeFor(config: StorageOf): ArtifactStore {
  return new ArtifactStore(objectStoreFor(config), localStateDir(config));
}
