// The user a request acts for, once authenticated: the name logged and stored as task owner, the
// roles matched against account permissions, and whether an admin role makes every check pass.
export interface Principal {
  name: string;
  roles: readonly string[];
  admin: boolean;
  /** Let in without a token because the config allows anonymous access. */
  anonymous: boolean;
}
