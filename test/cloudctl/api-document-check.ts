// Holds every successful JSON answer of cloudctl's HTTP API to the schema its own Swagger document
// (`/v2/api-docs`) gives for the operation and status, the way a generated client reads it: an object
// schema that lists properties is closed (a field it does not declare fails), a type is a type (null
// only where `x-nullable` says so). toMatchObject in a test ignores extra, renamed and mistyped
// fields; this does not, so a response that drifts from the document fails the test that saw it.
import SwaggerParser from '@apidevtools/swagger-parser';
import AjvModule, { type ValidateFunction } from 'ajv-draft-04';
import { isRecord } from '../../src/lib/is-record.ts';

// A CommonJS module: its class is module.exports, and module.exports.default too.
const Ajv = AjvModule.default;

type Schema = Record<string, unknown>;

interface Operation {
  method: string;
  /**
   * The path template's segments; `undefined` for a `{parameter}`, a pattern for a segment with a
   * parameter and literal text (`{id}:resume`).
   */
  segments: Array<string | RegExp | undefined>;
  template: string;
  responses: Record<string, Schema | undefined>;
}

/** The document's schema made strict: objects that list properties are closed, x-nullable allows null. */
export function strictSchema(schema: unknown, inAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => strictSchema(s, inAllOf));
  if (!isRecord(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strictSchema(v)]));
    } else if (key === 'allOf') out.allOf = strictSchema(value, true);
    else if (key === 'items' || key === 'additionalProperties') out[key] = strictSchema(value);
    else if (!key.startsWith('x-') && key !== 'example' && key !== 'discriminator') out[key] = value;
  }
  // A member of allOf sees only its own properties: closing it would refuse its siblings' fields.
  if (isRecord(out.properties) && out.additionalProperties === undefined && !inAllOf)
    out.additionalProperties = false;
  return schema['x-nullable'] === true ? { anyOf: [out, { type: 'null' }] } : out;
}

/** A template's segment as `Operation.segments` holds it. */
function segmentOf(segment: string): string | RegExp | undefined {
  if (/^\{[^}]+\}$/.test(segment)) return undefined;
  if (!segment.includes('{')) return segment;
  const parts = segment.split(/\{[^}]+\}/).map((literal) => literal.replace(/[.*+?^$()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`);
}

function matches(template: string | RegExp | undefined, segment: string | undefined): boolean {
  if (template === undefined) return true;
  if (segment === undefined) return false;
  return typeof template === 'string' ? template === segment : template.test(segment);
}

export class ApiDocumentCheck {
  readonly #operations: Operation[];
  readonly #ajv = new Ajv({ strict: false, allErrors: true });
  readonly #compiled = new Map<Schema, ValidateFunction>();

  private constructor(operations: Operation[]) {
    this.#operations = operations;
  }

  static async load(baseUrl: string): Promise<ApiDocumentCheck> {
    const response = await fetch(`${baseUrl}/v2/api-docs`);
    if (response.status !== 200) throw new Error(`GET ${baseUrl}/v2/api-docs answered ${response.status}`);
    const document = await SwaggerParser.dereference((await response.json()) as never);
    const operations: Operation[] = [];
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item ?? {})) {
        if (!isRecord(operation) || !isRecord(operation.responses)) continue;
        const responses: Record<string, Schema | undefined> = {};
        for (const [status, answer] of Object.entries(operation.responses)) {
          responses[status] = isRecord(answer) && isRecord(answer.schema) ? answer.schema : undefined;
        }
        const segments = template.split('/').map(segmentOf);
        operations.push({ method: method.toUpperCase(), segments, template, responses });
      }
    }
    return new ApiDocumentCheck(operations);
  }

  /** The operation a request goes to: the template that matches with the most literal segments. */
  #operation(method: string, path: string): Operation | undefined {
    const segments = path.split('?')[0]?.split('/').map(decodeURIComponent) ?? [];
    let best: { operation: Operation; literals: number } | undefined;
    for (const operation of this.#operations) {
      if (operation.method !== method || operation.segments.length !== segments.length) continue;
      if (!operation.segments.every((s, i) => matches(s, segments[i]))) continue;
      const literals = operation.segments.filter((s) => s !== undefined).length;
      if (best === undefined || literals > best.literals) best = { operation, literals };
    }
    return best?.operation;
  }

  /**
   * Whether the document lists the status among the operation's answers; an empty list when it does,
   * or when no operation matches (a path no route serves, a method the path is not served for: the
   * server's own 404 and 405). A 500 is never documented, and fails a test on its own.
   */
  statusProblems(method: string, path: string, status: number): string[] {
    const operation = this.#operation(method, path);
    if (operation === undefined || status === 500 || String(status) in operation.responses) return [];
    return [
      `${method} ${path} (${status}): ${operation.template} documents no ${status} answer; declare it in the route's ` +
        `schema.response (\`...errorAnswers('<CODE>')\`, src/cloudctl/http/error-answers.ts)`,
    ];
  }

  /** Problems of a 2xx JSON answer against the document, or an empty list. */
  problems(method: string, path: string, status: number, body: unknown): string[] {
    const operation = this.#operation(method, path);
    const where = `${method} ${path} (${status})`;
    if (operation === undefined) return [`${where}: no operation of the API document matches the request`];
    const schema = operation.responses[String(status)] ?? operation.responses.default;
    if (schema === undefined) {
      return [`${where}: ${operation.template} documents no schema for a ${status} answer with a JSON body`];
    }
    let validate = this.#compiled.get(schema);
    if (validate === undefined) {
      validate = this.#ajv.compile(strictSchema(schema) as Schema);
      this.#compiled.set(schema, validate);
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (e) =>
        `${where}: ${operation.template}: body${e.instancePath} ${e.message}${
          e.keyword === 'additionalProperties' ? ` (${JSON.stringify(e.params)})` : ''
        }`,
    );
  }
}
