// What the read model's routes need: the permission checks, the index queries, and the agents for
// what the cache does not hold (logs).
import type { AccountGuard } from '../accounts/index.ts';
import type { CacheStore } from '../caching/index.ts';
import type { OperationDispatcher } from '../operations/index.ts';
import type { ReadModel } from './read-model.ts';

export interface ReadRouteDeps {
  guard: AccountGuard;
  model: ReadModel;
  /** The cached objects the index does not summarize (a pod's metrics). */
  cache: Pick<CacheStore, 'object'>;
  /** Runs agent operations (a pod's logs for its console). */
  operations: Pick<OperationDispatcher, 'execute'>;
}
