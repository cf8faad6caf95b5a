// Which objects an account with onlyPlatformManaged caches: those the deployment service marked as
// its own. The watch leaves the others out, and so does a read made for the cache.
import { isRecord } from '../../lib/is-record.ts';

/** The deployment service marks what it deploys with this (spec: context variables). */
export const PLATFORM_MANAGED = 'deploy.vendor.io/application';

export function isPlatformManaged(object: Record<string, unknown>): boolean {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  return [metadata.annotations, metadata.labels].some((map) => isRecord(map) && PLATFORM_MANAGED in map);
}
