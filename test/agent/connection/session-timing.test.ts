import { describe, expect, it } from 'vitest';
import { sessionTiming } from '../../../src/agent/connection/session-timing.ts';
import { agentConfig } from './support.ts';

describe('session timing', () => {
  it('timeoutSeconds: 0 gives hello no deadline, as for every other request', () => {
    expect(sessionTiming(agentConfig('B', { timeoutSeconds: 0 })).handshakeTimeoutMs).toBe(0);
    expect(sessionTiming(agentConfig('A', {})).handshakeTimeoutMs).toBe(0);
  });

  it('timeoutSeconds above 0 is hello’s deadline', () => {
    expect(sessionTiming(agentConfig('B', { timeoutSeconds: 7 })).handshakeTimeoutMs).toBe(7000);
  });

  it('the silence limit is keepAliveTimeOutSeconds, else twice the heartbeat period', () => {
    expect(sessionTiming(agentConfig('B', {}))).toMatchObject({
      heartbeatMs: 20_000,
      silenceLimitMs: 40_000,
    });
    expect(
      sessionTiming(
        agentConfig('A', { cloudctl: { keepAliveHeartbeatSeconds: 5, keepAliveTimeOutSeconds: 3 } }),
      ),
    ).toMatchObject({ heartbeatMs: 5000, silenceLimitMs: 3000 });
  });

  it('only B restarts for want of operations', () => {
    const cloudctl = { keepAliveOperationSeconds: 30 };
    expect(sessionTiming(agentConfig('B', { cloudctl })).operationIdleMs).toBe(30_000);
    expect(sessionTiming(agentConfig('C', {})).operationIdleMs).toBe(0);
  });
});
