// The read model: Spinnaker's Kubernetes-provider view of the cache (applications, clusters, server
// groups, load balancers, instances, security groups, raw resources, search), derived at ingest
// into read_objects and answered over HTTP from that index alone. docs/read-model.md has the mapping.
import type { Route } from '../http/index.ts';
import { applicationRoutes } from './application-routes.ts';
import { clusterRoutes } from './cluster-routes.ts';
import { instanceRoutes } from './instance-routes.ts';
import { jobRoutes } from './job-routes.ts';
import { providerRoutes } from './provider-routes.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import { searchRoutes } from './search-routes.ts';
import { securityGroupRoutes } from './security-group-routes.ts';
import { targetRoutes } from './target-routes.ts';

export {
  indexObject,
  MONIKER,
  type ObjectIndex,
  RECOMMENDED_NAME_LABEL,
  type Role,
  selects,
} from './object-mapping.ts';
export { ReadIndex } from './read-index.ts';
export { type IndexedObject, ReadModel } from './read-model.ts';
export { type ReadModelTables, readModelMigration } from './read-model-tables.ts';
export { monikerSchema } from './records.ts';
export type { ReadRouteDeps } from './route-deps.ts';

/** Every read-model route; one line per family. */
export function readModelRoutes(deps: ReadRouteDeps): Route[] {
  return [
    ...applicationRoutes(deps),
    ...clusterRoutes(deps),
    ...targetRoutes(deps),
    ...instanceRoutes(deps),
    ...jobRoutes(deps),
    ...securityGroupRoutes(deps),
    ...searchRoutes(deps),
    ...providerRoutes(deps),
  ];
}
