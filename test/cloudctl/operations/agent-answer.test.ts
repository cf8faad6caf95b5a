// What asking an agent answers to the HTTP API, written once (operations/agent-answer.ts): a failure
// the agent reports is 502 AGENT_FAILED with the agent's code leading the message; no agent (or one
// that went away) is 503; no result by the deadline is 502; an absent object is undefined only where
// the caller asked for that. The dispatcher here is a stand-in for its `execute`: the function under
// test is the mapping, and the real channel is covered by test/cloudctl/operations.test.ts.
import { describe, expect, it } from 'vitest';
import { CloudctlError } from '../../../src/cloudctl/errors.ts';
import { HttpError } from '../../../src/cloudctl/http/index.ts';
import {
  type AgentOperations,
  agentAnswerError,
  askAgent,
  askAgentIfPresent,
} from '../../../src/cloudctl/operations/index.ts';
import { checkResult, type OperationFailure } from '../../../src/contract/index.ts';

const ref = { apiVersion: 'v1', kind: 'Pod', namespace: 'ns', name: 'p' };

function failing(error: OperationFailure): AgentOperations {
  return { execute: async () => ({ id: 'op', outcome: 'failed', error }) };
}

function throwing(error: Error): AgentOperations {
  return {
    execute: async () => {
      throw error;
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected an HttpError, got ${String(error)}`);
  return error;
}

describe('agentAnswerError', () => {
  it("makes the agent's failure a 502 whose message leads with its code and names the field", () => {
    const error = agentAnswerError(
      { failure: { code: 'INVALID', message: 'spec.replicas: must be >= 0', path: 'spec.replicas' } },
      'scale web',
    );
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 502, code: 'AGENT_FAILED' });
    expect((error as HttpError).message).toBe(
      'the agent could not scale web: INVALID: spec.replicas: must be >= 0 (at spec.replicas)',
    );
  });

  it('makes no connected agent, and a session that closed, a 503', () => {
    for (const code of ['AGENT_NOT_CONNECTED', 'SESSION_CLOSED'] as const) {
      const thrown = new CloudctlError(code, `${code} happened`);
      const error = agentAnswerError({ thrown }, 'read p');
      expect(error).toMatchObject({ status: 503, code: 'AGENT_UNAVAILABLE', message: thrown.message });
      expect((error as HttpError).cause).toBe(thrown);
    }
  });

  it('makes no result by the deadline a 502', () => {
    const thrown = new CloudctlError('OPERATION_TIMEOUT', 'no result');
    const error = agentAnswerError({ thrown }, 'read p');
    expect(error).toMatchObject({ status: 502, code: 'AGENT_FAILED', message: thrown.message });
  });

  it("passes cloudctl's own errors through untouched (a 500 with the cause in the log)", () => {
    const database = new Error('connection terminated');
    expect(agentAnswerError({ thrown: database }, 'read p')).toBe(database);
    const other = new CloudctlError('OPERATION_FAILED', 'operation x was never sent');
    expect(agentAnswerError({ thrown: other }, 'read p')).toBe(other);
  });
});

describe('askAgent and askAgentIfPresent', () => {
  it('answer the typed result of a success', async () => {
    const operations: AgentOperations = {
      execute: async (request) => {
        const result = checkResult(request.type, { log: 'hello\n' });
        if (!result.ok) throw new Error(result.message);
        return { id: 'op', outcome: 'succeeded', result: result.value };
      },
    };
    const answer = await askAgent(
      operations,
      { account: 'a', type: 'logs', payload: { namespace: 'ns', pod: 'p' } },
      'read the log',
    );
    expect(answer.log).toBe('hello\n');
  });

  it('answer an object the cluster does not have as undefined only when asked if present', async () => {
    for (const code of ['NOT_FOUND', 'UNKNOWN_KIND'] as const) {
      const operations = failing({ code, message: 'absent' });
      const request = { account: 'a', type: 'get', payload: ref } as const;
      expect(await askAgentIfPresent(operations, request, 'read p')).toBeUndefined();
      const error = await rejection(askAgent(operations, request, 'read p'));
      expect(error.message).toBe(`the agent could not read p: ${code}: absent`);
    }
  });

  it('fail with the HTTP error of any other failure, present or not', async () => {
    const operations = failing({ code: 'FORBIDDEN', message: 'pods "p" is forbidden' });
    const request = { account: 'a', type: 'get', payload: ref } as const;
    const error = await rejection(askAgentIfPresent(operations, request, 'read p'));
    expect(error).toMatchObject({ status: 502, code: 'AGENT_FAILED' });
    expect(error.message).toBe('the agent could not read p: FORBIDDEN: pods "p" is forbidden');
  });

  it('fail with 503 when no agent serves the account', async () => {
    const operations = throwing(
      new CloudctlError('AGENT_NOT_CONNECTED', 'no connected agent serves account a'),
    );
    const request = { account: 'a', type: 'get', payload: ref } as const;
    const error = await rejection(askAgentIfPresent(operations, request, 'read p'));
    expect(error).toMatchObject({ status: 503, code: 'AGENT_UNAVAILABLE' });
  });
});
