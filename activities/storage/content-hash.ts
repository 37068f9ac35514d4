// The content address of bytes: artifacts, cached answers and checkpoint files are named by it.
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
