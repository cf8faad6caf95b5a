import { Metadata } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import {
  type CachingConnection,
  GrpcCacheSink,
  NotConnectedError,
} from '../../../src/agent/watch/grpc-cache-sink.ts';

/** A connection that is down, counting how often the sink reached for the caching client. */
function downConnection() {
  const calls = { cachingClient: 0 };
  const connection: CachingConnection = {
    cachingClient: () => {
      calls.cachingClient++;
      return undefined;
    },
    callMetadata: async () => new Metadata(),
    unaryCallOptions: () => ({}),
  };
  return { connection, calls };
}

describe('resume versions (maxResumableResourceAgeMs)', () => {
  it('0 resumes nothing and does not ask the control plane, for which 0 would mean no age limit', async () => {
    const { connection, calls } = downConnection();
    const points = await new GrpcCacheSink(connection).resumeVersions(['a'], 0, new AbortController().signal);
    expect(points.size).toBe(0);
    expect(calls.cachingClient).toBe(0);
  });

  it('above 0 asks the control plane', async () => {
    const { connection, calls } = downConnection();
    const asked = new GrpcCacheSink(connection).resumeVersions(['a'], 300_000, new AbortController().signal);
    await expect(asked).rejects.toBeInstanceOf(NotConnectedError);
    expect(calls.cachingClient).toBe(1);
  });
});
