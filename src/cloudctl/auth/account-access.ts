// Who may do what on an account. An account's permissions map READ and WRITE to role lists (from
// the agent's config or from a credentials definition): reads need a READ role, operations and
// cache writes a WRITE role. An account without permissions is open to every authenticated user,
// the convention of the system we mirror; admin roles pass every check.
import type { Principal } from './principal.ts';

export interface AccountPermissions {
  read: readonly string[];
  write: readonly string[];
}

export type Access = 'READ' | 'WRITE';

export function isRestricted(permissions: AccountPermissions): boolean {
  return permissions.read.length > 0 || permissions.write.length > 0;
}

export function mayAccess(principal: Principal, permissions: AccountPermissions, access: Access): boolean {
  if (principal.admin || !isRestricted(permissions)) return true;
  // WRITE implies READ, as in the system we mirror: a deployer can see what it deploys.
  const roles = access === 'READ' ? [...permissions.read, ...permissions.write] : permissions.write;
  return principal.roles.some((role) => roles.includes(role));
}
