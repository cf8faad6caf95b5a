// The clocks of one session, from the config: heartbeat period, silence limit, operation idleness
// (B) and how long hello may wait for `registered`. `timeoutSeconds` is "the maximum wait on a
// server request; 0 means no timeout", and hello is a request like the others: with 0 it waits as
// long as the stream lives. With keep-alive on, a dead peer is still noticed meanwhile: the HTTP/2
// pings (channel-options.ts) end the stream.
import { type AgentConfig, operationIdleMs } from '../config/index.ts';
import type { SessionOptions } from './session.ts';

export type SessionTiming = Pick<
  SessionOptions,
  'heartbeatMs' | 'silenceLimitMs' | 'operationIdleMs' | 'handshakeTimeoutMs'
>;

export function sessionTiming(config: AgentConfig): SessionTiming {
  const settings = config.cloudctl;
  const heartbeatMs = settings.keepAliveHeartbeatSeconds * 1000;
  return {
    heartbeatMs,
    silenceLimitMs:
      settings.keepAliveTimeOutSeconds === undefined
        ? 2 * heartbeatMs
        : settings.keepAliveTimeOutSeconds * 1000,
    operationIdleMs: operationIdleMs(config),
    handshakeTimeoutMs: config.timeoutSeconds * 1000,
  };
}
