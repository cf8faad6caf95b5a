// Word of a task's change inside this process, by task id: the task store tells it after each write it
// commits, and a client following a task (GET /task/{id}?waitMs=) wakes at once instead of at its next
// poll. A write made by another replica is not told here; the follower reads again on its own timer.
export class TaskChanges {
  readonly #waiting = new Map<string, Set<() => void>>();

  /** Wakes whoever waits for the task; called after the write is committed. */
  changed(id: string): void {
    const wakers = this.#waiting.get(id);
    if (wakers === undefined) return;
    this.#waiting.delete(id);
    for (const wake of wakers) wake();
  }

  /** Resolves at the task's next change here, or after `ms`, whichever comes first. */
  next(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let wakers = this.#waiting.get(id);
      if (wakers === undefined) {
        wakers = new Set();
        this.#waiting.set(id, wakers);
      }
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const current = this.#waiting.get(id);
        current?.delete(wake);
        if (current?.size === 0) this.#waiting.delete(id);
        resolve();
      }, ms);
      wakers.add(wake);
    });
  }
}
