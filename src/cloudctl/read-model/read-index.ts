// The read model's index as the cache writes it (CacheIndexer): what ingest derives from each object
// (object-mapping.ts) goes into columns of the object's own `resources` row, in the cache's one
// multi-row statement, so a read never sees an object without its derived values or the reverse.
// Objects no read uses (no role of their own and no application) get none, and stay out of reads.
import type { CacheIndexer, IndexColumn, IndexValue, StoredObject } from '../caching/index.ts';
import { indexObject, roleOf } from './object-mapping.ts';

/** The derived columns (read-model-tables.ts adds them), in the order `derive` gives values. */
export const INDEX_COLUMNS: readonly IndexColumn[] = [
  { name: 'uid', type: 'text' },
  { name: 'spinnaker_kind', type: 'text' },
  { name: 'role', type: 'text' },
  { name: 'application', type: 'text' },
  { name: 'cluster', type: 'text' },
  { name: 'stack', type: 'text' },
  { name: 'detail', type: 'text' },
  { name: 'sequence', type: 'integer' },
  { name: 'owner_kind', type: 'text' },
  { name: 'owner_name', type: 'text' },
  { name: 'labels', type: 'jsonb' },
  { name: 'selector', type: 'jsonb' },
  { name: 'created_time', type: 'float8' },
  { name: 'summary', type: 'jsonb' },
];

const NOT_INDEXED: readonly IndexValue[] = INDEX_COLUMNS.map(() => null);

/** Where an application can come from; a body without any of them needs no parsing to know it has none. */
const APPLICATION_KEYS = [
  'moniker.spinnaker.io/application',
  'deploy.vendor.io/application',
  'app.kubernetes.io/name',
];
/**
 * Text every application key holds: one search for it rules most bodies out (a short needle is found
 * natively several times faster than the three keys each searched for through the whole body).
 */
const IN_EVERY_KEY = '.io/';

/** Null for an empty object (the view reads it back as `{}`). */
function jsonOrNull(value: object): string | null {
  for (const _ in value) return JSON.stringify(value);
  return null;
}

export class ReadIndex implements CacheIndexer {
  readonly columns = INDEX_COLUMNS;
  /** What a watcher is told of a removed object: its Spinnaker kind, moniker and owner (watch/). */
  readonly keptOnRemoval = [
    'spinnaker_kind',
    'application',
    'cluster',
    'stack',
    'detail',
    'sequence',
    'owner_kind',
    'owner_name',
  ];

  derive(object: StoredObject): readonly IndexValue[] {
    // Most objects of a cluster (ConfigMaps, Secrets, Events, ...) belong to no application; a
    // substring test spares parsing them, and the parse below still decides for those it lets by.
    if (
      roleOf(object.group, object.kind) === 'raw' &&
      !(object.body.includes(IN_EVERY_KEY) && APPLICATION_KEYS.some((k) => object.body.includes(k)))
    ) {
      return NOT_INDEXED;
    }
    const index = indexObject(object, object.body);
    if (index.role === 'raw' && index.application === null) return NOT_INDEXED;
    return [
      index.uid,
      index.spinnakerKind,
      index.role,
      index.application,
      index.cluster,
      index.stack,
      index.detail,
      index.sequence,
      index.owner?.kind ?? null,
      index.owner?.name ?? null,
      jsonOrNull(index.labels),
      index.selector === null ? null : JSON.stringify(index.selector),
      index.createdTime,
      jsonOrNull(index.summary),
    ];
  }
}
