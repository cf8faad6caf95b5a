// One operation of the API we mirror (Spinnaker's Kubernetes operation names), turned into the
// agent operation that carries it out. Each converter validates its payload (zod: a bad field is a
// 400 naming its path), says which account it acts on, and shapes the agent's answer into the task's
// result object. Adding an operation name is one file in this folder and one line in index.ts.
// One operation may take several agent steps (enableManifest patches a ReplicaSet and each of its
// pods): they run in order as steps of the task, and the task stops at the first that fails.
// Every payload takes null as absent in its optional fields (null-as-absent.ts), as clouddriver does.
import type { z } from 'zod';
import type {
  AccountDescription,
  OperationCall,
  OperationResult,
  OperationType,
} from '../../../contract/index.ts';
import { CodedError } from '../../../lib/coded-error.ts';
import type { ResolvedKind } from '../../caching/index.ts';
import { nullAsAbsent } from './null-as-absent.ts';
import type { TaskResultObject } from './result-object.ts';

/** An agent operation a converter produces: the compiler checks its payload against its type's. */
export type AgentStep = OperationCall & {
  account: string;
  /** What converting found that the result object reports (a deploy's bound artifacts); kept with the step. */
  details?: unknown;
  /** What this step does, for the task history; the converter's `describe` when absent. */
  description?: string;
};

/** An agent's result, checked against its type's schema by the dispatcher. */
export type AgentResult = OperationResult<OperationType>;

/** Spinnaker kind names (`deployment`, `replicaSet`, `Rollout.argoproj.io`) as the cluster's kinds. */
export interface KindResolver {
  /** The kind, or undefined when neither the cache nor the built-in table knows it. */
  resolve(account: string, spinnakerKind: string): Promise<ResolvedKind | undefined>;
}

/** A pod as the lookups give it: enough to patch its labels. */
export interface PodLabels {
  name: string;
  labels: Record<string, string>;
}

/**
 * What converters read of an account's cluster, as the cache last saw it (the cache follows the
 * cluster within moments; a converter runs before the task is stored, so it cannot ask the agent).
 */
export interface ClusterLookups {
  /** One object by its Spinnaker kind (`replicaSet`, `service`), or undefined when not cached. */
  object(
    account: string,
    spinnakerKind: string,
    namespace: string,
    name: string,
  ): Promise<Record<string, unknown> | undefined>;
  /** The pods a server group controls (its `ownerReferences` controller), in name order. */
  podsOf(account: string, namespace: string, spinnakerKind: string, name: string): Promise<PodLabels[]>;
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
  /** Objects and pods as the cache last saw them (enable/disable look their targets up here). */
  cache: ClusterLookups;
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
  /** The agent steps that carry the operation out, in order; at least one. */
  toAgent(payload: z.output<S>, context: ConverterContext): Promise<AgentStep[]>;
  /**
   * The task's result object for one step's agent answer; undefined adds none (scale, rollouts, and
   * the steps of a several-step operation that report nothing of their own).
   */
  resultObject(payload: z.output<S>, step: AgentStep, agentResult: AgentResult): TaskResultObject | undefined;
}

/** A converter with its payload type erased, to be listed beside others. */
export interface OperationConverter {
  name: string;
  phase: string;
  payload: z.ZodType;
  /** Each takes the client's operation description as `payload` parsed it. */
  describe(input: unknown): string;
  toAgent(input: unknown, context: ConverterContext): Promise<AgentStep[]>;
  resultObject(input: unknown, step: AgentStep, agentResult: AgentResult): TaskResultObject | undefined;
}

export function defineConverter<S extends z.ZodType>(definition: ConverterDefinition<S>): OperationConverter {
  // Callers pass only what `payload` parsed, so the erased payload type is the schema's output; and
  // reading null as absent changes what the schema takes, never what it gives.
  const converter = { ...definition, payload: nullAsAbsent(definition.payload) };
  return converter as unknown as OperationConverter;
}
