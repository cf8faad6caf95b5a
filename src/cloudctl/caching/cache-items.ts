// Turns the wire form of cache items into store changes, refusing what the contract forbids: an
// item must name its account, kind and object, objects must be JSON objects.
import { status } from '@grpc/grpc-js';
import type { Drift } from '../../contract/index.ts';
import { assertJsonObject, JsonScanError } from '../../lib/json-scan.ts';
import type { CacheItem__Output, ResourceEvent__Output, WatchScope__Output } from '../../proto/index.ts';
import { RpcFailure } from '../grpc/index.ts';
import type { CacheChange, WatchScope } from './cache-store.ts';

function invalid(index: number, details: string): RpcFailure {
  return new RpcFailure(status.INVALID_ARGUMENT, `items[${index}]: ${details}`);
}

function scopeOf(scope: WatchScope__Output | null, index: number): WatchScope {
  if (scope == null || scope.account === '' || scope.kind === '')
    throw invalid(index, 'scope needs account and kind');
  return { account: scope.account, group: scope.group, kind: scope.kind, namespace: scope.namespace };
}

/** The object's JSON text, once checked to be one JSON object (it is stored as sent, as text). */
function jsonObject(bytes: Buffer, index: number): string {
  const text = bytes.toString('utf8');
  try {
    assertJsonObject(bytes, text);
  } catch (error) {
    if (error instanceof JsonScanError) throw invalid(index, `object is not a JSON object: ${error.message}`);
    throw error;
  }
  return text;
}

/** The drift the agent sent, as the JSON text the cache stores; null for none (or no manager). */
function driftText(drift: ResourceEvent__Output['drift']): string | null {
  if (drift == null || drift.managers.length === 0) return null;
  const summary: Drift = {
    managers: drift.managers.map((m) => ({
      manager: m.manager,
      operation: m.operation,
      ...(m.subresource === '' ? {} : { subresource: m.subresource }),
      time: m.time === '' ? null : m.time,
      paths: m.paths,
      morePaths: m.morePaths,
    })),
  };
  return JSON.stringify(summary);
}

export function toCacheChange(item: CacheItem__Output, index: number): CacheChange {
  switch (item.item) {
    case 'event': {
      const event = item.event;
      if (
        event == null ||
        event.account === '' ||
        event.name === '' ||
        event.gvk == null ||
        event.gvk.kind === ''
      ) {
        throw invalid(index, 'event needs account, gvk.kind and name');
      }
      const key = {
        account: event.account,
        group: event.gvk.group,
        kind: event.gvk.kind,
        namespace: event.namespace,
        name: event.name,
      };
      if (event.type === 'DELETED') return { type: 'delete', ...key };
      if (event.type !== 'ADDED' && event.type !== 'MODIFIED')
        throw invalid(index, `event type ${event.type}`);
      return {
        type: 'upsert',
        ...key,
        version: event.gvk.version,
        resourceVersion: event.resourceVersion,
        body: jsonObject(event.object, index),
        snapshotId: event.snapshotId === '' ? null : event.snapshotId,
        drift: driftText(event.drift),
      };
    }
    case 'snapshotBegin': {
      const begin = item.snapshotBegin;
      if (begin == null || begin.snapshotId === '') throw invalid(index, 'snapshot_begin needs snapshot_id');
      return { type: 'snapshotBegin', scope: scopeOf(begin.scope, index), snapshotId: begin.snapshotId };
    }
    case 'snapshotEnd': {
      const end = item.snapshotEnd;
      if (end == null || end.snapshotId === '') throw invalid(index, 'snapshot_end needs snapshot_id');
      return {
        type: 'snapshotEnd',
        scope: scopeOf(end.scope, index),
        snapshotId: end.snapshotId,
        resourceVersion: end.resourceVersion,
      };
    }
    case 'bookmark': {
      const bookmark = item.bookmark;
      if (bookmark == null || bookmark.resourceVersion === '')
        throw invalid(index, 'bookmark needs resource_version');
      return {
        type: 'bookmark',
        scope: scopeOf(bookmark.scope, index),
        resourceVersion: bookmark.resourceVersion,
      };
    }
    default:
      throw invalid(index, 'empty item');
  }
}

export function accountOf(change: CacheChange): string {
  return 'scope' in change ? change.scope.account : change.account;
}
