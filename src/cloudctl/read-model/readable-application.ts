// What the routes about one application share (its views, clusters, targets): the application's
// objects in the accounts the user may read, or a 404 when the user may read none of it.
import type { Principal } from '../auth/index.ts';
import { HttpError } from '../http/index.ts';
import type { Role } from './object-mapping.ts';
import type { ApplicationParts } from './read-model.ts';
import type { ReadRouteDeps } from './route-deps.ts';
import type { ApplicationView } from './views.ts';

/** What every view of an application but its raw resources is made of. */
const SERVING_ROLES: readonly Role[] = ['serverGroup', 'serverGroupManager', 'loadBalancer'];

/**
 * What a read of ServerGroup records needs around them: instances (and their counts), load
 * balancers (and `disabled`), security groups. Clusters show such records; so do targets.
 */
export const SERVER_GROUP_PARTS: ApplicationParts = {
  instances: true,
  loadBalancers: true,
  securityGroups: true,
};

export interface ReadableApplicationOptions {
  /** Server groups, their managers and load balancers unless told. */
  roles?: readonly Role[] | 'every role';
  /** An account the route names: 404 when unknown, 403 when the user may not read it. */
  account?: string;
  /**
   * What around the server groups the answer shows: `instances` (pods), `loadBalancers` and
   * `securityGroups` (NetworkPolicies) of their namespaces. None unless told; a route asks for
   * what its records show (SERVER_GROUP_PARTS for ServerGroup records).
   */
  parts?: ApplicationParts;
}

/**
 * The application's objects of the roles in the accounts the user may read; 404 when the user may
 * read no object of it at all. The accounts are read once, for the named account's check as well:
 * each directory read is a database round trip, and on a busy machine round trips are what a read
 * costs.
 */
export async function readableApplication(
  deps: Pick<ReadRouteDeps, 'guard' | 'model'>,
  user: Principal,
  application: string,
  options: ReadableApplicationOptions = {},
): Promise<ApplicationView> {
  const { roles = SERVING_ROLES, account, parts = {} } = options;
  const accounts = (await deps.guard.visible(user)).map((a) => a.name);
  // Not among the readable ones: the guard says why (unknown or forbidden), as routes always did.
  if (account !== undefined && !accounts.includes(account)) await deps.guard.require(user, account, 'READ');
  const found = await deps.model.application(
    application,
    accounts,
    roles === 'every role' ? undefined : roles,
    {
      instances: parts.instances ?? false,
      loadBalancers: parts.loadBalancers ?? false,
      securityGroups: parts.securityGroups ?? false,
    },
  );
  if (
    !found.objects.some((o) => o.application === application) &&
    !(await deps.model.hasApplication(application, accounts))
  ) {
    throw new HttpError('NOT_FOUND', `no application named ${application}`);
  }
  return { application, ...found };
}
