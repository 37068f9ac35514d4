// What every recipe's dry-run SIMULATOR shares: the shape of a request and reply, and the check of its odds.

/** Structurally the dry-run server's request (its `messages` are untyped JSON). */
export interface SimulatedRequest {
  model: string;
  messages: ReadonlyArray<{ role: string; content: unknown }>;
  n: number;
  seed?: number;
  temperature: number;
  maxTokens?: number;
}
export interface SimulatedReply {
  texts: string[];
  promptTokens: number;
  completionTokens: number[];
}

/** Each named probability must lie in [0, 1]; a bad checkpoint policy file is one clear error. */
export function checkOdds(odds: Record<string, number>): void {
  for (const [name, v] of Object.entries(odds))
    if (!(v >= 0 && v <= 1)) throw new Error(`simulated policy: "${name}" must be a number in [0, 1], got ${v}`);
}
