// Operations as the agent wires them: the journal (in flight, recent, the shutdown drain) and the
// executor with every handler, secrets resolved with the agent's own engines.
import type { SecretEngine } from '../../secrets/index.ts';
import { secretValue } from '../../secrets/index.ts';
import type { AccountCluster } from '../accounts/index.ts';
import { HANDLERS } from './handlers/index.ts';
import { type Operation, OperationExecutor, type OperationResult } from './operation-executor.ts';
import { OperationJournal } from './operation-journal.ts';

/** Operations without a deadline of their own get this long. */
export const DEFAULT_OPERATION_DEADLINE_MS = 5 * 60_000;

export interface OperationsDeps {
  clusterFor: (account: string) => AccountCluster | undefined;
  /** Why a served account has no cluster connection (its last failure), if it is served at all. */
  unavailableReason: (account: string) => string | undefined;
  secretEngines: ReadonlyArray<SecretEngine>;
  now: () => Date;
  onFinished: (operation: Operation, result: OperationResult) => void;
}

export function createOperations(deps: OperationsDeps): {
  journal: OperationJournal;
  executor: OperationExecutor;
} {
  const journal = new OperationJournal({ capacity: 200, now: Date.now });
  const executor = new OperationExecutor({
    handlers: HANDLERS,
    clusterFor: deps.clusterFor,
    unavailableReason: deps.unavailableReason,
    journal,
    defaultDeadlineMs: DEFAULT_OPERATION_DEADLINE_MS,
    rememberResults: 1000,
    now: deps.now,
    secret: (reference) => secretValue(reference, deps.secretEngines, 'the agent'),
    onFinished: deps.onFinished,
  });
  return { journal, executor };
}
