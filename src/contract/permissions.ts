// Account permissions: READ and WRITE lists of role names. The original product silently ignores a
// list with whitespace in it and then lets every user in; we refuse such a config instead.
//
// Two spellings are accepted, both checked the same way: a map (`READ: [...]`, `WRITE: [...]`) and the
// original product's list of single-key entries (`- READ: [...]`, `- WRITE: [...]`), which its
// documentation shows and configs copied from it carry.
import { z } from 'zod';
import { describeZodIssue } from '../lib/config-issue.ts';
import { setting } from '../lib/setting-meta.ts';

const WHITESPACE_ERROR =
  'role names must not contain whitespace: the permissions would otherwise not be applied and every user would have access';

/** Numeric role names (`READ: [123567]`, group ids) are read by YAML as numbers; they are names. */
const roleName = z.preprocess(
  (value) => (typeof value === 'number' && Number.isInteger(value) ? String(value) : value),
  z.string().min(1, { error: 'a role name must not be empty' }).regex(/^\S+$/, { error: WHITESPACE_ERROR }),
);

/**
 * A role list as a YAML list, or as one comma-separated string the way some configs write it. The
 * string is split as written, so `dev, ops` yields ' ops' and is refused like any name with a space.
 */
const roleList = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value.split(',')
      : typeof value === 'number' && Number.isInteger(value)
        ? [String(value)]
        : value,
  z.array(roleName),
);

const PERMISSION_KEYS = ['READ', 'WRITE'] as const;

const unknownKeysError = (keys: ReadonlyArray<string>) =>
  `only READ and WRITE are permission keys (found ${keys.join(', ')}); anything else would be ignored and leave the account open`;

// Strict: an unknown key such as `read` or `EXECUTE` would be silently ignored, and access would be
// wider than the author meant.
const permissionMap = z.strictObject(
  {
    READ: setting(roleList.optional(), { description: 'roles that may read the account; no whitespace' }),
    WRITE: setting(roleList.optional(), {
      description: 'roles that may deploy to the account; no whitespace',
    }),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeysError(issue.keys) : undefined) },
);
export type Permissions = z.infer<typeof permissionMap>;

/** `- READ: [...]` / `- WRITE: [...]`: each entry one key, each key once. */
const permissionList = z
  .array(permissionMap)
  .superRefine((entries, ctx) => {
    const seen = new Map<string, number>();
    for (const [index, entry] of entries.entries()) {
      const keys = PERMISSION_KEYS.filter((key) => entry[key] !== undefined);
      if (keys.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          path: [index],
          message: `each entry of the permissions list holds one key, READ or WRITE (found ${keys.length === 0 ? 'none' : keys.join(' and ')})`,
        });
      }
      for (const key of keys) {
        const first = seen.get(key);
        if (first !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [index, key],
            message: `${key} is already given by permissions[${first}]: write all its roles in one list`,
          });
        } else seen.set(key, index);
      }
    }
  })
  .transform((entries): Permissions => Object.assign({}, ...entries));

/**
 * Either spelling, chosen by the shape written, so that each one's errors name the keys as the file
 * has them (`permissions[1].WRITE[0]` for the list, `permissions.WRITE[0]` for the map).
 */
export const permissionsSchema = z.unknown().transform((value, ctx): Permissions => {
  const parsed = (Array.isArray(value) ? permissionList : permissionMap).safeParse(value, {
    reportInput: true,
  });
  if (parsed.success) return parsed.data;
  // Worded here, where the inner issue's details are still known; the loader quotes it as it is.
  for (const issue of parsed.error.issues) {
    ctx.issues.push({ code: 'custom', path: issue.path, message: describeZodIssue(issue), input: undefined });
  }
  return z.NEVER;
});
