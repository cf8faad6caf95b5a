// The task budget (`tasks.*`): at most `totalBudget` tasks at once, and at most `budgetPerAccount` per
// account (0 = unlimited; both are checked when both are set). A task that fits starts at once; one
// that does not waits in the queue, which is checked every `queueCheckFrequencyMs` (the spec: "how
// often the agent checks for new tasks"): each check starts, in order, every waiting task that fits
// then. A freed slot is taken at the next check, not at once, so the setting paces how fast a queue
// of lists drains: lower it for a faster initial sync under a tight budget, raise it to spread the
// load on the API servers.

export interface TaskBudgetSettings {
  totalBudget: number;
  budgetPerAccount: number;
  queueCheckFrequencyMs: number;
}

export class TaskBudget {
  readonly #settings: TaskBudgetSettings;
  readonly #running = new Map<string, number>();
  readonly #queue: Array<{ account: string; start: () => void }> = [];
  #total = 0;
  #peak = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #onQueueDepth: (depth: number) => void;

  constructor(settings: TaskBudgetSettings, onQueueDepth: (depth: number) => void = () => undefined) {
    this.#settings = settings;
    this.#onQueueDepth = onQueueDepth;
  }

  /** Most tasks ever running at once: what the budget is meant to bound. */
  get peak(): number {
    return this.#peak;
  }

  get queued(): number {
    return this.#queue.length;
  }

  #fits(account: string): boolean {
    const { totalBudget, budgetPerAccount } = this.#settings;
    return (
      (totalBudget === 0 || this.#total < totalBudget) &&
      (budgetPerAccount === 0 || (this.#running.get(account) ?? 0) < budgetPerAccount)
    );
  }

  #drain() {
    for (let i = 0; i < this.#queue.length; ) {
      const waiting = this.#queue[i];
      if (waiting !== undefined && this.#fits(waiting.account)) {
        this.#queue.splice(i, 1);
        this.#take(waiting.account);
        waiting.start();
      } else i++;
    }
    this.#onQueueDepth(this.#queue.length);
    if (this.#queue.length === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  #take(account: string) {
    this.#total++;
    this.#peak = Math.max(this.#peak, this.#total);
    this.#running.set(account, (this.#running.get(account) ?? 0) + 1);
  }

  /** Runs `task` when the budget allows it, and frees its slot when it ends. */
  async run<T>(account: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#fits(account) && this.#queue.length === 0) this.#take(account);
    else {
      await new Promise<void>((resolve, reject) => {
        const entry = { account, start: resolve };
        this.#queue.push(entry);
        this.#onQueueDepth(this.#queue.length);
        signal?.addEventListener(
          'abort',
          () => {
            const at = this.#queue.indexOf(entry);
            if (at >= 0) this.#queue.splice(at, 1);
            reject(signal.reason);
          },
          { once: true },
        );
        this.#timer ??= setInterval(() => this.#drain(), this.#settings.queueCheckFrequencyMs).unref();
      });
    }
    try {
      return await task();
    } finally {
      this.#total--;
      this.#running.set(account, (this.#running.get(account) ?? 1) - 1);
    }
  }
}
