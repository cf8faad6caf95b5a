// Spinnaker's label selectors (clouddriver's KubernetesSelectorList): a deploy applies only the
// manifests whose labels match every selector, as `kubectl apply --selector` does, and a delete
// finds its objects with them. Each selector is one requirement on one label.
import { z } from 'zod';

const selectorSchema = z.object({
  kind: z.enum(['ANY', 'EQUALS', 'NOT_EQUALS', 'CONTAINS', 'NOT_CONTAINS', 'EXISTS', 'NOT_EXISTS']),
  key: z.string().min(1),
  values: z.array(z.string()).default([]),
});

export const labelSelectorsSchema = z
  .object({ selectors: z.array(selectorSchema).default([]) })
  .describe("Spinnaker's KubernetesSelectorList: every selector must match");
export type LabelSelectors = z.infer<typeof labelSelectorsSchema>;
type Selector = z.infer<typeof selectorSchema>;

function matchesOne(selector: Selector, labels: Record<string, string>): boolean {
  const value = labels[selector.key];
  switch (selector.kind) {
    case 'ANY':
      return true;
    case 'EQUALS':
      return value !== undefined && value === selector.values[0];
    case 'NOT_EQUALS':
      return value !== selector.values[0];
    case 'CONTAINS':
      return value !== undefined && selector.values.includes(value);
    case 'NOT_CONTAINS':
      return value === undefined || !selector.values.includes(value);
    case 'EXISTS':
      return value !== undefined;
    case 'NOT_EXISTS':
      return value === undefined;
  }
}

export function matchesSelectors(selectors: LabelSelectors, labels: Record<string, string>): boolean {
  return selectors.selectors.every((s) => matchesOne(s, labels));
}

const QUERY: Record<Selector['kind'], (s: Selector) => string | undefined> = {
  ANY: () => undefined,
  EQUALS: (s) => `${s.key}=${s.values[0] ?? ''}`,
  NOT_EQUALS: (s) => `${s.key}!=${s.values[0] ?? ''}`,
  CONTAINS: (s) => `${s.key} in (${s.values.join(',')})`,
  NOT_CONTAINS: (s) => `${s.key} notin (${s.values.join(',')})`,
  EXISTS: (s) => s.key,
  NOT_EXISTS: (s) => `!${s.key}`,
};

/** The selectors as a Kubernetes `labelSelector` query (for lists). */
export function selectorQuery(selectors: LabelSelectors): string {
  return selectors.selectors
    .map((s) => QUERY[s.kind](s))
    .filter((q) => q !== undefined)
    .join(',');
}
