// Word that a client credential stopped proving anyone (revoked, or its secret rotated), from the API
// that did it to the agent streams open with it on this replica, so they end at once instead of at
// their next reconnect. In memory by nature: a stream lives in one process. A stream on another
// replica learns it at its agent's next heartbeat (AgentAuthenticator.stillValid).
export class CredentialRevocations {
  readonly #listeners = new Map<string, Set<() => void>>();

  /** Calls `listener` once when `credentialId` is revoked or rotated; returns the way to stop listening. */
  watch(credentialId: string, listener: () => void): () => void {
    const listeners = this.#listeners.get(credentialId) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(credentialId, listeners);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(credentialId) === listeners)
        this.#listeners.delete(credentialId);
    };
  }

  revoked(credentialId: string): void {
    const listeners = this.#listeners.get(credentialId);
    this.#listeners.delete(credentialId);
    for (const listener of [...(listeners ?? [])]) listener();
  }

  /** How many streams listen, for tests that a closed stream stops listening. */
  get size(): number {
    let count = 0;
    for (const listeners of this.#listeners.values()) count += listeners.size;
    return count;
  }
}
