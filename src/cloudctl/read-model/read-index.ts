// Writes the read model's index rows for objects the cache has just stored, inside the cache's
// transaction (CacheIndexer), so a read never sees an object without its derived row or the reverse.
import type { Transaction } from 'kysely';
import type { CacheIndexer, StoredObject } from '../caching/index.ts';
import type { CloudctlDatabase } from '../store/index.ts';
import { indexObject } from './object-mapping.ts';

/** Rows per statement: 21 parameters each stays far below PostgreSQL's 65535 bind parameters. */
const CHUNK = 500;

export class ReadIndex implements CacheIndexer {
  async stored(tx: Transaction<CloudctlDatabase>, objects: readonly StoredObject[]): Promise<void> {
    const rows = objects.map((object) => {
      const index = indexObject(object, object.body);
      return {
        account: object.account,
        api_group: object.group,
        kind: object.kind,
        namespace: object.namespace,
        name: object.name,
        api_version: object.version,
        uid: index.uid,
        spinnaker_kind: index.spinnakerKind,
        role: index.role,
        application: index.application,
        cluster: index.cluster,
        stack: index.stack,
        detail: index.detail,
        sequence: index.sequence,
        owner_kind: index.owner?.kind ?? null,
        owner_name: index.owner?.name ?? null,
        labels: JSON.stringify(index.labels),
        selector: index.selector === null ? null : JSON.stringify(index.selector),
        created_time: index.createdTime,
        summary: JSON.stringify(index.summary),
      };
    });
    for (let i = 0; i < rows.length; i += CHUNK) {
      await tx
        .insertInto('read_objects')
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) =>
          oc.columns(['account', 'api_group', 'kind', 'namespace', 'name']).doUpdateSet((eb) => ({
            api_version: eb.ref('excluded.api_version'),
            uid: eb.ref('excluded.uid'),
            spinnaker_kind: eb.ref('excluded.spinnaker_kind'),
            role: eb.ref('excluded.role'),
            application: eb.ref('excluded.application'),
            cluster: eb.ref('excluded.cluster'),
            stack: eb.ref('excluded.stack'),
            detail: eb.ref('excluded.detail'),
            sequence: eb.ref('excluded.sequence'),
            owner_kind: eb.ref('excluded.owner_kind'),
            owner_name: eb.ref('excluded.owner_name'),
            labels: eb.ref('excluded.labels'),
            selector: eb.ref('excluded.selector'),
            created_time: eb.ref('excluded.created_time'),
            summary: eb.ref('excluded.summary'),
          })),
        )
        .execute();
    }
  }
}
