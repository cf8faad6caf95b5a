// Waiting on something that may be cut short by an AbortSignal. The signals here live as long as an
// account or the agent, and the waits happen per event or per batch: a listener left on the signal
// after each wait would pile up without bound, holding every settled promise. Each wait removes its
// listener when it ends, whichever way it ends.
import { addAbortListener } from 'node:events';

/**
 * Resolves when `register`'s wake function is called or when `signal` aborts, whichever is first.
 * `register` runs at once and keeps `wake` wherever the waker will find it.
 */
export function untilWokenOrAborted(
  register: (wake: () => void) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve) => {
    if (signal === undefined) {
      register(resolve);
      return;
    }
    if (signal.aborted) {
      resolve();
      return;
    }
    const listener = addAbortListener(signal, () => resolve());
    register(() => {
      listener[Symbol.dispose]();
      resolve();
    });
  });
}

/** Settlers of a promise that rejects with the signal's reason on abort, until it is settled. */
export interface AbortableSettlers<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function abortableSettlers<T>(signal: AbortSignal): AbortableSettlers<T> {
  const { promise, resolve, reject } = Promise.withResolvers<T>();
  if (signal.aborted) {
    reject(signal.reason);
    return { promise, resolve: () => {}, reject: () => {} };
  }
  const listener = addAbortListener(signal, () => reject(signal.reason));
  return {
    promise,
    resolve(value) {
      listener[Symbol.dispose]();
      resolve(value);
    },
    reject(error) {
      listener[Symbol.dispose]();
      reject(error);
    },
  };
}
