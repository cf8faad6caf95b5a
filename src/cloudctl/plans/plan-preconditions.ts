// The guard on applying a plan: every object it planned must still be as the plan saw it (the same
// resourceVersion, or still absent). Checked twice: cloudctl asks each account's agent (`versions`)
// before it starts anything, so a plan whose objects moved is refused whole with each moved object
// named; and each write carries the versions it expects (`expect`), so an object moved between that
// check and the write is refused by the agent (PRECONDITION_FAILED) instead of overwritten.
import { type ExpectedVersion, type OperationCall, operationCallSchema } from '../../contract/index.ts';
import { type AgentOperations, askAgent } from '../operations/index.ts';
import type { TaskStep } from '../tasks/index.ts';
import type { PlannedOperation } from './plan-record.ts';
import { objectKey } from './planned-operation.ts';

/** How many objects one `versions` question may name (the contract's bound). */
const VERSIONS_PER_ASK = 1000;

/**
 * The versions each step expects, one list per step: the objects it planned, each as the plan saw it.
 * An object a step changes is expected only by the first step touching it: a later step finds it
 * changed by that one, as planned.
 */
export function stepExpectations(operations: readonly PlannedOperation[]): ExpectedVersion[][] {
  const seen = new Set<string>();
  return operations.map((operation) => {
    const expected: ExpectedVersion[] = [];
    for (const object of operation.objects) {
      const key = objectKey(operation.account, object);
      if (seen.has(key)) continue;
      seen.add(key);
      expected.push({
        apiVersion: object.apiVersion,
        kind: object.kind,
        ...(object.namespace === undefined ? {} : { namespace: object.namespace }),
        name: object.name,
        resourceVersion: object.resourceVersion,
      });
    }
    return expected;
  });
}

/** The step with its expectations in its payload; a step expecting nothing is left as it is. */
export function withExpect(step: TaskStep, expect: ExpectedVersion[]): TaskStep {
  if (expect.length === 0) return step;
  const { type, payload, ...rest } = step;
  // Checked against the contract: `expect` is a field of every write payload, and only writes have
  // planned objects; a payload that would not take it is an error here, not on the agent.
  const call: OperationCall = operationCallSchema.parse({ type, payload: { ...payload, expect } });
  return { ...rest, ...call };
}

function describe(object: ExpectedVersion): string {
  return `${object.kind} ${object.namespace === undefined ? '' : `${object.namespace}/`}${object.name}`;
}

function moved(object: ExpectedVersion, now: string | null): string {
  const then = object.resourceVersion;
  const was = then === null ? 'absent when planned' : `resourceVersion ${then} when planned`;
  const is =
    now === null ? 'absent now' : then === null ? `exists now (resourceVersion ${now})` : `${now} now`;
  return `${describe(object)}: ${was}, ${is}`;
}

/**
 * Each planned object that moved since the plan, in words (`Deployment ns/web: resourceVersion 12
 * when planned, 15 now`), asked of each account's agent; none when all are as seen.
 */
export async function movedSincePlanned(
  operations: readonly PlannedOperation[],
  agents: AgentOperations,
): Promise<string[]> {
  const byAccount = new Map<string, ExpectedVersion[]>();
  const expectations = stepExpectations(operations);
  operations.forEach((operation, i) => {
    const list = byAccount.get(operation.account) ?? [];
    list.push(...(expectations[i] ?? []));
    byAccount.set(operation.account, list);
  });
  const found: string[] = [];
  for (const [account, expected] of byAccount) {
    for (let start = 0; start < expected.length; start += VERSIONS_PER_ASK) {
      const chunk = expected.slice(start, start + VERSIONS_PER_ASK);
      const objects = chunk.map(({ resourceVersion: _seen, ...ref }) => ref);
      const answer = await askAgent(
        agents,
        { account, type: 'versions', payload: { objects } },
        `read the versions of the planned objects in account ${account}`,
      );
      chunk.forEach((object, i) => {
        const now = answer.versions[i] ?? null;
        if (now !== object.resourceVersion) found.push(moved(object, now));
      });
    }
  }
  return found;
}
