// A pace gate: a file holding a count. Item n (1-based: the n-th answer, the n-th step) may go ahead once the file is
// gone or holds a number >= n. Tests set the pace of the dry-run simulator's answers and the stand-in trainer's steps
// with it, so a stage they read live cannot end before they have read it, however slow or fast the machine is.
import { readFileSync } from 'node:fs';

/** Whether item `n` may go ahead (no file, or an unreadable one, opens the gate: a gate never wedges a run). */
export function paceAllows(file: string | undefined, n: number): boolean {
  if (!file) return true;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return true;
  }
  const allowed = Number(text.trim());
  return !Number.isFinite(allowed) || allowed >= n;
}

/** Resolves once item `n` may go ahead, or once `abandoned()` says nobody waits for it any more. */
export function waitForPace(file: string | undefined, n: number, abandoned: () => boolean = () => false): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (paceAllows(file, n) || abandoned() ? resolve() : setTimeout(check, 50));
    check();
  });
}
