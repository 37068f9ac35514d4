// A FIFO semaphore. One per endpoint per worker process, shared by every shard running there, so the endpoint
// sees at most `maxConcurrency` requests from this worker however many shards are in flight.
export class Semaphore {
  private waiters: Array<() => void> = [];
  private active = 0;
  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.active--;
    }
  }
}

const perEndpoint = new Map<string, Semaphore>();

export function endpointLimiter(baseUrl: string, maxConcurrency: number): Semaphore {
  const key = `${baseUrl}#${maxConcurrency}`;
  let s = perEndpoint.get(key);
  if (!s) perEndpoint.set(key, (s = new Semaphore(maxConcurrency)));
  return s;
}
