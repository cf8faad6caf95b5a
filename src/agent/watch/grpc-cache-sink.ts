// The cache sink over gRPC: batches go up the control plane's `Caching.Publish` stream, each with a
// sequence number, and `publish` resolves when that sequence is acknowledged (acknowledgements are
// cumulative and come in order; the server reads only a few batches ahead of its commits, so they
// pace the agent). A broken stream fails the batches in flight; the uplink sends them again on the
// next stream, after a reconnect. Batches are encoded by hand (cache-batch-encoding.ts), not
// through protobufjs's message objects.
import type { CallOptions, ClientDuplexStream, Metadata } from '@grpc/grpc-js';
import { CodedError } from '../../lib/coded-error.ts';
import { type AbortableSettlers, abortableSettlers } from '../../lib/signalled-wait.ts';
import {
  type CacheAck__Output,
  type CachingClient,
  fromTimestamp,
  type GetResumeVersionsResponse__Output,
  loadContract,
} from '../../proto/index.ts';
import { encodeCacheBatch, type OutgoingBatch } from './cache-batch-encoding.ts';
import { type CacheItem, type CacheSink, type ResumePoint, scopeKey } from './cache-item.ts';

export interface CachingConnection {
  cachingClient(): CachingClient | undefined;
  callMetadata(): Promise<Metadata>;
  unaryCallOptions(): CallOptions;
}

export class NotConnectedError extends CodedError<'NOT_CONNECTED'> {
  constructor() {
    super('NOT_CONNECTED', 'not connected to the control plane');
  }
}

/** Publish as the contract defines it: its path, and the acknowledgements' deserializer. */
const publishMethod = () => loadContract().proto.orchagent.v1.Caching.service.Publish;

export class GrpcCacheSink implements CacheSink {
  readonly #connection: CachingConnection;
  #client: CachingClient | undefined;
  #stream: ClientDuplexStream<OutgoingBatch, CacheAck__Output> | undefined;
  /** The last write: each waits for the one before, so batches go out in the order published. */
  #writes: Promise<void> = Promise.resolve();
  /**
   * Counts failures: a batch published before a failure is not written after it (a later batch
   * must not reach a new stream ahead of an earlier one that failed; the uplink resends both).
   */
  #generation = 0;
  readonly #pending = new Map<number, AbortableSettlers<void>>();
  #sequence = 0;

  constructor(connection: CachingConnection) {
    this.#connection = connection;
  }

  #fail(error: Error) {
    this.#generation++;
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#stream = undefined;
  }

  async #open(): Promise<ClientDuplexStream<OutgoingBatch, CacheAck__Output>> {
    const client = this.#connection.cachingClient();
    if (client === undefined) throw new NotConnectedError();
    if (this.#stream !== undefined && this.#client === client) return this.#stream;
    this.#stream?.cancel();
    const { path, responseDeserialize } = publishMethod();
    const stream = client.makeBidiStreamRequest(
      path,
      encodeCacheBatch,
      responseDeserialize,
      await this.#connection.callMetadata(),
    );
    stream.on('data', (ack: CacheAck__Output) => {
      const acked = Number(ack.sequence);
      for (const [sequence, pending] of this.#pending) {
        if (sequence > acked) continue;
        this.#pending.delete(sequence);
        pending.resolve();
      }
    });
    stream.on('error', (error: Error) => {
      if (this.#stream === stream) this.#fail(error);
    });
    stream.on('end', () => {
      if (this.#stream === stream) this.#fail(new Error('the control plane ended the cache stream'));
    });
    this.#client = client;
    this.#stream = stream;
    return stream;
  }

  async publish(items: CacheItem[], signal: AbortSignal): Promise<void> {
    // Opening a stream waits for call metadata (a token command may run): concurrent publishes
    // must not open a stream each, nor overtake one another meanwhile.
    const generation = this.#generation;
    const write = this.#writes.then(async () => {
      if (generation !== this.#generation) throw new Error('an earlier batch failed; sent again in order');
      let stream: ClientDuplexStream<OutgoingBatch, CacheAck__Output>;
      try {
        stream = await this.#open();
      } catch (error) {
        this.#generation++;
        throw error;
      }
      const sequence = ++this.#sequence;
      const acknowledged = abortableSettlers<void>(signal);
      this.#pending.set(sequence, acknowledged);
      stream.write({ sequence, items });
      // Wrapped, so that the write settles when written, not when acknowledged.
      return { acknowledged: acknowledged.promise };
    });
    this.#writes = write.then(
      () => undefined,
      () => undefined,
    );
    const { acknowledged } = await write;
    await acknowledged;
  }

  /**
   * Cancels the Publish stream. Closing the channel leaves calls on it running, and an open stream
   * keeps the connection, and so the process, alive after the agent has stopped.
   */
  close(): void {
    const stream = this.#stream;
    this.#fail(new Error('the cache sink is closed'));
    stream?.cancel();
  }

  async resumeVersions(
    accounts: string[],
    maxAgeMs: number,
    _signal: AbortSignal,
  ): Promise<Map<string, ResumePoint>> {
    // `maxResumableResourceAgeMs: 0` asks, in the spec's words, for versions "not older than" 0 ms:
    // there are none, and every scope lists. On the wire 0 means "no age limit", so 0 is not sent.
    if (maxAgeMs === 0) return new Map();
    const client = this.#connection.cachingClient();
    if (client === undefined) throw new NotConnectedError();
    const metadata = await this.#connection.callMetadata();
    const answer = await new Promise<GetResumeVersionsResponse__Output>((resolve, reject) => {
      client.GetResumeVersions(
        { accounts, maxAgeMs: String(maxAgeMs) },
        metadata,
        this.#connection.unaryCallOptions(),
        (error, response) => {
          if (error !== null || response === undefined) reject(error ?? new Error('no answer'));
          else resolve(response);
        },
      );
    });
    const points = new Map<string, ResumePoint>();
    for (const version of answer.versions) {
      if (version.scope === null || version.scope === undefined) continue;
      const { account, group, kind, namespace } = version.scope;
      points.set(scopeKey({ account, group, kind, namespace }), {
        resourceVersion: version.resourceVersion,
        updatedAt: version.updatedAt ? fromTimestamp(version.updatedAt) : new Date(0),
      });
    }
    return points;
  }
}
