// The benchmark endpoint's capacity: at most `capacity` requests in service at once, the rest wait FIFO.
export class CapacitySlots {
  /** Requests holding a slot right now (queued ones not included): live state, never reset. */
  inService = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly capacity: number) {}

  acquire(start: () => void): void {
    if (this.inService < this.capacity) {
      this.inService++;
      start();
    } else this.queue.push(start);
  }

  // Hands the slot straight to the next waiter, so capacity is never briefly exceeded or idle.
  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.inService--;
  }
}
