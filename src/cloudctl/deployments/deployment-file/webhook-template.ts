// The placeholder language of webhook templates: `{{vendor.<name>}}` and `{{context.<name>}}`, with
// optional spaces inside the braces. Every `{{` opens a placeholder, so a typo is an error rather than
// text sent to the job. Parsing is shared by the load-time checks and the renderer, and by analysis
// query templates, whose `{{vendor.*}}` variables are others (parseTemplateOf).
import { nearest } from '../../../lib/did-you-mean.ts';
import { VENDOR_VARIABLES, type VendorVariable } from './vendor-variables.ts';

export type Placeholder<V extends string = VendorVariable> =
  | { namespace: 'vendor'; name: V; text: string }
  | { namespace: 'context'; name: string; text: string };
export type TemplatePart<V extends string = VendorVariable> = string | Placeholder<V>;

export type ParsedTemplate<V extends string = VendorVariable> =
  | { ok: true; parts: TemplatePart<V>[] }
  | { ok: false; message: string };

function isOneOf<V extends string>(name: string, variables: readonly V[]): name is V {
  return variables.some((v) => v === name);
}

const PLACEHOLDER = /^(vendor|context)\.([A-Za-z_][A-Za-z0-9_-]*)$/;

function placeholder<V extends string>(
  inner: string,
  text: string,
  variables: readonly V[],
): Placeholder<V> | string {
  const match = PLACEHOLDER.exec(inner);
  if (match === null) {
    const namespace = inner.split('.')[0] ?? '';
    // The original product's deployment secrets: files written for it say `{{secrets.<name>}}`.
    // cloudctl keeps no secrets of its own; the value comes from a secret engine by reference.
    if (namespace === 'secrets')
      return `'${text}' is a secret of the original product: cloudctl reads secrets from its secret engines, so write the whole header value as a reference, e.g. 'encrypted:vault!e:secret!p:<path>!k:<key>' or 'encrypted:k8s!n:<secret>!k:<key>' (docs/deployment-files.md, "Secrets")`;
    if (namespace === 'vendor' || namespace === 'context')
      return `'${text}' is not a variable: expected {{${namespace}.<name>}}`;
    const hint = nearest(namespace, ['vendor', 'context']);
    return `'${text}' is not a variable: templates know {{vendor.<name>}} and {{context.<name>}}${
      hint === undefined ? '' : `; did you mean {{${hint}.${inner.slice(namespace.length + 1)}}}?`
    }`;
  }
  const [, namespace, name = ''] = match;
  if (namespace === 'vendor') {
    if (!isOneOf(name, variables)) {
      const hint = nearest(name, variables);
      return `{{vendor.${name}}} is not a vendor variable (${variables.join(', ')})${
        hint === undefined ? '' : `; did you mean {{vendor.${hint}}}?`
      }`;
    }
    return { namespace: 'vendor', name, text };
  }
  return { namespace: 'context', name, text };
}

export function parseTemplate(template: string): ParsedTemplate {
  return parseTemplateOf(template, VENDOR_VARIABLES);
}

/** A template whose `{{vendor.*}}` variables are `variables`. */
export function parseTemplateOf<V extends string>(
  template: string,
  variables: readonly V[],
): ParsedTemplate<V> {
  const parts: TemplatePart<V>[] = [];
  let rest = 0;
  for (;;) {
    const open = template.indexOf('{{', rest);
    if (open < 0) break;
    const close = template.indexOf('}}', open + 2);
    if (close < 0) return { ok: false, message: `'{{' at character ${open + 1} is never closed by '}}'` };
    if (open > rest) parts.push(template.slice(rest, open));
    const text = template.slice(open, close + 2);
    const found = placeholder(template.slice(open + 2, close).trim(), text, variables);
    if (typeof found === 'string') return { ok: false, message: found };
    parts.push(found);
    rest = close + 2;
  }
  if (rest < template.length) parts.push(template.slice(rest));
  return { ok: true, parts };
}

/** The `{{context.*}}` names a parsed template uses, in order of first use. */
export function contextNames<V extends string>(parts: ReadonlyArray<TemplatePart<V>>): string[] {
  const names = parts.flatMap((p) => (typeof p !== 'string' && p.namespace === 'context' ? [p.name] : []));
  return [...new Set(names)];
}

export function usesVendor(parts: ReadonlyArray<TemplatePart>, name: string): boolean {
  return parts.some((p) => typeof p !== 'string' && p.namespace === 'vendor' && p.name === name);
}
