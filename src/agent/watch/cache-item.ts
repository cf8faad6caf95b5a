// What the watch streams to the control plane, mirroring the caching contract
// (proto/orchagent/v1/caching.proto): resource events, snapshot markers and bookmarks, each for one
// watch scope (account, group, kind, namespace; '' namespace = all namespaces or cluster scope).
import type { Drift } from '../../contract/index.ts';

export interface WatchScope {
  account: string;
  group: string;
  kind: string;
  namespace: string;
}

export interface ResourceEvent {
  type: 'event';
  scope: WatchScope;
  version: string;
  /** The object's own namespace (a scope over all namespaces holds objects of many). */
  namespace: string;
  name: string;
  resourceVersion: string;
  event: 'ADDED' | 'MODIFIED' | 'DELETED';
  /**
   * The object's JSON, already scrubbed: its UTF-8 bytes as the API server wrote them (less what
   * scrubbing cuts), held byte for character in a one-byte string (see `scrubObjectBytes`).
   */
  object: string;
  snapshotId: string;
  /** Set on an object cloudctl deployed that other field managers changed since (drift-summary.ts). */
  drift?: Drift;
}

export type CacheItem =
  | ResourceEvent
  | { type: 'snapshotBegin'; scope: WatchScope; snapshotId: string }
  | { type: 'snapshotEnd'; scope: WatchScope; snapshotId: string; resourceVersion: string }
  | { type: 'bookmark'; scope: WatchScope; resourceVersion: string };

export const scopeKey = (s: WatchScope) => `${s.account}\u0000${s.group}\u0000${s.kind}\u0000${s.namespace}`;

export function describeScope(s: WatchScope): string {
  return `${s.account}/${s.group ? `${s.kind}.${s.group}` : s.kind}${s.namespace ? ` in ${s.namespace}` : ''}`;
}

export interface ResumePoint {
  resourceVersion: string;
  updatedAt: Date;
}

/** Where watched state goes: the control plane's caching service, in production. */
export interface CacheSink {
  /** Resolves once the control plane has acknowledged the items (this is the backpressure). */
  publish(items: CacheItem[], signal: AbortSignal): Promise<void>;
  /** The last resourceVersion per scope the control plane stored, not older than `maxAgeMs`. */
  resumeVersions(
    accounts: string[],
    maxAgeMs: number,
    signal: AbortSignal,
  ): Promise<Map<string, ResumePoint>>;
  /** Ends what the sink holds open (the uplink has stopped); publishing is over. */
  close(): void;
}
