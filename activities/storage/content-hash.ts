// The content address of bytes: artifacts, cached answers and checkpoint files are named by it.
import { createHash } from 'node:crypto';
import { createReadStream, readdirSync } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** sha256 of a file, streamed: weight files run to tens of GB. */
export async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** A Hugging Face model directory's weight files, shards included: *.safetensors, or pytorch_model*.bin (not
 *  training_args.bin and other pickles a trainer leaves beside them). */
const WEIGHT_FILE = /\.safetensors$|^pytorch_model.*\.bin$/;

/** Which weights a model directory holds: file name → sha256 of each weight file, in name order. */
export async function weightDigests(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const files = readdirSync(dir).filter((f) => WEIGHT_FILE.test(f));
  for (const f of files.sort()) out[f] = await sha256File(path.join(dir, f));
  return out;
}
