// `auth.*`: who may do what beyond account permissions (administrators), anonymous access, and
// sign-in with an OpenID Connect provider.
import { z } from 'zod';
import { oidcSchema } from './oidc.ts';
import { roleSchema } from './roles.ts';

export const authSchema = z
  .strictObject({
    adminRoles: z
      .array(roleSchema)
      .default([])
      .describe('users with one of these roles may do everything, on every account'),
    anonymous: z
      .strictObject({
        enabled: z
          .boolean()
          .default(false)
          .describe('let requests without a token in, as the user "anonymous"; for demos only'),
        roles: z.array(roleSchema).default([]).describe('roles the anonymous user has'),
      })
      .prefault({})
      .describe('requests without a token'),
    oidc: oidcSchema.optional(),
  })
  .describe('authorization of HTTP API users');
