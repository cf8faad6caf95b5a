// What the read model's routes need: the permission checks, the index queries, and the agents for
// what the cache does not hold (logs).
import type { AccountGuard } from '../accounts/index.ts';
import type { OperationDispatcher } from '../operations/index.ts';
import type { ReadModel } from './read-model.ts';

export interface ReadRouteDeps {
  guard: AccountGuard;
  model: ReadModel;
  /** Runs agent operations (a pod's logs for its console). */
  operations: Pick<OperationDispatcher, 'execute'>;
}
