/** A FIFO async mutex: one per KB, serializing apply + commit (design.md P5). */
export class AsyncLock {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `fn` after every previously queued holder finished (success or failure). */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
