// `auth.*`: who may do what beyond account permissions (administrators), and anonymous access.
import { z } from 'zod';
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
  })
  .describe('authorization of HTTP API users');
