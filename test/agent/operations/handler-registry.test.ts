// The agent's handlers are a registry keyed by the contract's operation types: each type has exactly
// one handler (a missing one does not compile), and each payload is checked against its type's schema
// before the handler runs.
import { describe, expect, it } from 'vitest';
import {
  HANDLERS,
  type Handler,
  type HandlerRegistry,
  OperationExecutor,
  OperationJournal,
} from '../../../src/agent/operations/index.ts';
import { OPERATION_TYPES } from '../../../src/contract/index.ts';

describe('the agent handler registry', () => {
  it('has one handler for every operation type of the contract, and no other', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual([...OPERATION_TYPES].sort());
    for (const type of OPERATION_TYPES) expect(typeof HANDLERS[type].run).toBe('function');
  });

  it('does not compile without a handler for a type, or with a handler of the wrong type', () => {
    const { scale: _left, ...missingScale } = HANDLERS;
    // @ts-expect-error scale has no handler
    const incomplete: HandlerRegistry = missingScale;
    const logs: Handler<'logs'> = HANDLERS.logs;
    // @ts-expect-error a logs handler returns {log}, not scale's result
    const crossed: HandlerRegistry = { ...HANDLERS, scale: logs };
    expect([incomplete, crossed]).toHaveLength(2);
  });
});

describe('the executor with the registry', () => {
  function executor() {
    return new OperationExecutor({
      handlers: HANDLERS,
      // No cluster is reached: these operations end before a handler would use one.
      clusterFor: () => undefined,
      journal: new OperationJournal({ capacity: 10, now: () => Date.now() }),
      defaultDeadlineMs: 5_000,
      rememberResults: 10,
      now: () => new Date(),
    });
  }

  it('answers a type outside the contract with UNKNOWN_OPERATION, naming the known ones', async () => {
    const result = await executor().execute({ id: 'op-1', type: 'reboot', account: 'a', payload: {} });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe('UNKNOWN_OPERATION');
    expect(result.error?.message).toContain("unknown operation type 'reboot'");
    expect(result.error?.message).toContain('httpRequest');
  });
});
