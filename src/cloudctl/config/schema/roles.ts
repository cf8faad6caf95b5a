// Role names, as users carry them and `auth.*` grants them.
import { z } from 'zod';

/**
 * A role name as written in permissions and user entries. Whitespace is refused: the product we
 * replace silently dropped such roles and so opened the account to everyone.
 */
export const roleSchema = z.string().min(1).regex(/^\S+$/, 'a role name may not contain whitespace');
