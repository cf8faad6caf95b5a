// Account permissions: READ and WRITE lists of role names. The original product silently ignores a
// list with whitespace in it and then lets every user in; we refuse such a config instead.
import { z } from 'zod';
import { setting } from '../../../lib/setting-meta.ts';

const WHITESPACE_ERROR =
  'role names must not contain whitespace: the permissions would otherwise not be applied and every user would have access';

/**
 * A role list as a YAML list, or as one comma-separated string the way some configs write it. The
 * string is split as written, so `dev, ops` yields ' ops' and is refused like any name with a space.
 */
const roleList = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(',') : value),
  z.array(
    z.string().min(1, { error: 'a role name must not be empty' }).regex(/^\S+$/, { error: WHITESPACE_ERROR }),
  ),
);

// Strict: an unknown key such as `read` or `EXECUTE` would be silently ignored, and access would be
// wider than the author meant.
export const permissionsSchema = z.strictObject(
  {
    READ: setting(roleList.optional(), { description: 'roles that may read the account; no whitespace' }),
    WRITE: setting(roleList.optional(), {
      description: 'roles that may deploy to the account; no whitespace',
    }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `only READ and WRITE are permission keys (found ${issue.keys.join(', ')}); anything else would be ignored and leave the account open`
        : undefined,
  },
);
export type Permissions = z.infer<typeof permissionsSchema>;
