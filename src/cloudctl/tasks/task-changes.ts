// Word of a task's change inside this process, by task id: the task store tells it after each write it
// commits, with the task as written when it has it, and a client following a task (GET
// /task/{id}?waitMs=) wakes at once instead of at its next poll, and answers with that task without
// reading it back (one database round trip less between a deploy's completion and its client). A
// write made by another replica is not told here; the follower reads again on its own timer.
export class TaskChanges<Task> {
  readonly #waiting = new Map<string, Set<(task: Task | undefined) => void>>();

  /** Wakes whoever waits for the task, with it as committed when given; called after the commit. */
  changed(id: string, task?: Task): void {
    const wakers = this.#waiting.get(id);
    if (wakers === undefined) return;
    this.#waiting.delete(id);
    for (const wake of wakers) wake(task);
  }

  /**
   * Resolves at the task's next change here (with the task, when the writer gave it), or with
   * undefined after `ms`, whichever comes first.
   */
  next(id: string, ms: number): Promise<Task | undefined> {
    return new Promise((resolve) => {
      let wakers = this.#waiting.get(id);
      if (wakers === undefined) {
        wakers = new Set();
        this.#waiting.set(id, wakers);
      }
      const wake = (task: Task | undefined) => {
        clearTimeout(timer);
        resolve(task);
      };
      const timer = setTimeout(() => {
        const current = this.#waiting.get(id);
        current?.delete(wake);
        if (current?.size === 0) this.#waiting.delete(id);
        resolve(undefined);
      }, ms);
      wakers.add(wake);
    });
  }
}
