// One operation of the API we mirror (Spinnaker's Kubernetes operation names), turned into the
// agent operation that carries it out. Each converter validates its payload (zod: a bad field is a
// 400 naming its path), says which account it acts on, and shapes the agent's answer into the task's
// result object. Adding an operation name is one file in this folder and one line in index.ts.
import type { z } from 'zod';
import type { AccountDescription } from '../../../contract/index.ts';
import { CodedError } from '../../../lib/coded-error.ts';
import type { ResolvedKind } from '../../caching/index.ts';

/** The agent operation a converter produces; each converter types `payload` with the contract's. */
export interface AgentStep {
  account: string;
  type: string;
  payload: unknown;
  /** What converting found that the result object reports (a deploy's bound artifacts); kept with the step. */
  details?: unknown;
}

/** Spinnaker kind names (`deployment`, `replicaSet`, `Rollout.argoproj.io`) as the cluster's kinds. */
export interface KindResolver {
  /** The kind, or undefined when neither the cache nor the built-in table knows it. */
  resolve(account: string, spinnakerKind: string): Promise<ResolvedKind | undefined>;
}

/**
 * What a converter may read from the account's cluster through its agent, at the time of the request:
 * where manifests may go, and the objects a deploy versions against (Secret values blanked).
 */
export interface ClusterReads {
  describe(account: string): Promise<AccountDescription>;
  list(account: string, of: { apiVersion: string; kind: string; namespace: string }): Promise<KubeObject[]>;
}

/** An object as the API server answers it. */
export type KubeObject = Record<string, unknown>;

export interface ConverterContext {
  kinds: KindResolver;
  cluster: ClusterReads;
}

/** A payload that parsed but cannot be carried out as asked; the path names the field. */
export class PayloadError extends CodedError<'PAYLOAD_INVALID'> {
  readonly path: string;
  constructor(path: string, message: string) {
    super('PAYLOAD_INVALID', message);
    this.path = path;
  }
}

export interface ConverterDefinition<S extends z.ZodType> {
  /** The operation name clients send (`deployManifest`). */
  name: string;
  /** The task history phase of its steps. */
  phase: string;
  payload: S;
  /** What the step does, for the task history. */
  describe(payload: z.output<S>): string;
  toAgent(payload: z.output<S>, context: ConverterContext): Promise<AgentStep>;
  /** The task's result object for the agent's answer; undefined adds none (scale, rollouts). */
  resultObject(payload: z.output<S>, step: AgentStep, agentResult: unknown): unknown;
}

/** A converter with its payload type erased, to be listed beside others. */
export interface OperationConverter {
  name: string;
  phase: string;
  payload: z.ZodType;
  describe(payload: unknown): string;
  toAgent(payload: unknown, context: ConverterContext): Promise<AgentStep>;
  resultObject(payload: unknown, step: AgentStep, agentResult: unknown): unknown;
}

export function defineConverter<S extends z.ZodType>(definition: ConverterDefinition<S>): OperationConverter {
  // Callers pass only what `payload` parsed, so the erased payload type is the schema's output.
  return definition as unknown as OperationConverter;
}
