// Requests are validated by the routes' zod schemas themselves: what is parsed is what the handler
// gets, and a refusal names the parameter or field (`query parameter limit: …`, `body.account: …`).
// U+0000 is refused everywhere first: PostgreSQL cannot store it in text.
import type { FastifySchemaCompiler } from 'fastify';
import { CodedError } from '../../lib/coded-error.ts';
import { formatKeyPath } from '../../lib/yaml-source.ts';
import { findNul } from './nul-character.ts';
import { isZodSchema } from './route.ts';

/** A part of the request a zod schema rejected; the message names the parameter. */
export class ValidationFailure extends CodedError<'REQUEST_INVALID'> {
  constructor(part: string, issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>) {
    const prefix = part === 'querystring' ? 'query parameter ' : part === 'params' ? 'path parameter ' : '';
    const described = issues.map((issue) => {
      const path = formatKeyPath(issue.path.map((p) => (typeof p === 'number' ? p : String(p))));
      const where =
        part === 'body' ? (path === '' ? 'body' : `body.${path}`) : path === '' ? part : `${prefix}${path}`;
      return `${where}: ${issue.message}`;
    });
    super('REQUEST_INVALID', described.join('; '));
  }
}

/** fastify's validator compiler for zod schemas; a schema that is not zod passes the data through. */
export const zodValidator: FastifySchemaCompiler<unknown> =
  ({ schema, httpPart }) =>
  (data: unknown) => {
    if (!isZodSchema(schema)) return { value: data };
    const part = httpPart ?? 'request';
    const nul = findNul(data);
    if (nul !== undefined) {
      const message = 'contains the character U+0000, which cloudctl does not store';
      return { error: new ValidationFailure(part, [{ path: nul, message }]) };
    }
    const parsed = schema.safeParse(data);
    if (parsed.success) return { value: parsed.data };
    return { error: new ValidationFailure(part, parsed.error.issues) };
  };
