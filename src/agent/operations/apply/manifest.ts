// The parts of a manifest the agent relies on, checked with a path to the bad field, and the
// manifest itself kept as raw JSON so no field is lost on the way to the API server.
import { z } from 'zod';
import { CodedError } from '../../../lib/coded-error.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export const manifestSchema = z.looseObject({
  apiVersion: z.string().min(1, { error: 'apiVersion is required' }),
  kind: z.string().min(1, { error: 'kind is required' }),
  metadata: z.looseObject({
    name: z.string().min(1, { error: 'metadata.name is required' }).max(253),
    namespace: z.string().regex(DNS_SUBDOMAIN, { error: 'not a valid namespace name' }).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
});
export type Manifest = z.infer<typeof manifestSchema>;

export class InvalidManifestError extends CodedError<'INVALID_MANIFEST'> {
  readonly path: string;
  constructor(path: string, message: string) {
    super('INVALID_MANIFEST', `invalid manifest: ${path}: ${message}`);
    this.path = path;
  }
}

export function parseManifest(value: unknown, index: number): Manifest {
  const parsed = manifestSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = [`manifests[${index}]`, ...(issue?.path ?? []).map(String)].join('.');
  throw new InvalidManifestError(path, issue?.message ?? 'invalid');
}

export function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
}

export function describeManifest(m: Manifest): string {
  return `${m.kind} ${m.metadata.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata.name}`;
}
