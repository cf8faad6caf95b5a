// Spinnaker names an object "<kind> <name>" (`deployment web`, `Rollout.argoproj.io canary`), and
// calls its namespace the location. These helpers read that form and write it back for results.
import { z } from 'zod';
import { isRecord } from '../../../lib/is-record.ts';
import type { ResolvedKind } from '../../caching/index.ts';
import { type ConverterContext, PayloadError } from './converter.ts';

export const manifestNameSchema = z
  .string()
  .regex(/^\S+ \S+$/, 'expected "<kind> <name>", e.g. "deployment web"')
  .describe('the object as "<kind> <name>", e.g. "deployment web"');

/** account, manifestName and location: the fields every single-object operation takes. */
export const targetFields = {
  account: z.string().min(1).describe('the account whose cluster holds the object'),
  manifestName: manifestNameSchema,
  location: z.string().default('').describe('the namespace; empty for cluster-scoped objects'),
  cloudProvider: z.string().optional().describe('ignored; always orchestrator'),
};

export interface Target {
  account: string;
  manifestName: string;
  location: string;
}

export function splitManifestName(manifestName: string): { kind: string; name: string } {
  const [kind = '', name = ''] = manifestName.split(' ');
  return { kind, name };
}

/** The object a target names, with its kind resolved for the agent. */
export async function resolveTarget(
  target: Target,
  context: ConverterContext,
): Promise<ResolvedKind & { name: string; namespace?: string }> {
  const { kind, name } = splitManifestName(target.manifestName);
  const resolved = await context.kinds.resolve(target.account, kind);
  if (resolved === undefined) {
    throw new PayloadError('manifestName', `unknown kind '${kind}' in account ${target.account}`);
  }
  return { ...resolved, name, ...(target.location === '' ? {} : { namespace: target.location }) };
}

/** The API groups whose kinds Spinnaker names without their group. */
const NATIVE_GROUPS = new Set([
  '',
  'core',
  'batch',
  'apps',
  'extensions',
  'storage.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'autoscaling',
  'admissionregistration.k8s.io',
  'policy',
  'scheduling.k8s.io',
  'settings.k8s.io',
  'authorization.k8s.io',
  'authentication.k8s.io',
  'rbac.authorization.k8s.io',
  'certificates.k8s.io',
  'networking.k8s.io',
]);

/** Spinnaker's spelling of a kind: lower camel case for native groups, `Kind.group` otherwise. */
export function spinnakerKind(apiVersion: string, kind: string): string {
  const group = apiVersion.includes('/') ? (apiVersion.split('/')[0] ?? '') : '';
  return NATIVE_GROUPS.has(group) ? `${kind.charAt(0).toLowerCase()}${kind.slice(1)}` : `${kind}.${group}`;
}

/** `{namespace: ["deployment web", ...]}` for a set of manifests, as results carry them. */
export function namesByNamespace(manifests: readonly unknown[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const manifest of manifests) {
    if (!isRecord(manifest) || !isRecord(manifest.metadata)) continue;
    const namespace = typeof manifest.metadata.namespace === 'string' ? manifest.metadata.namespace : '';
    const name = String(manifest.metadata.name ?? manifest.metadata.generateName ?? '');
    const kind = spinnakerKind(String(manifest.apiVersion ?? ''), String(manifest.kind ?? ''));
    (out[namespace] ??= []).push(`${kind} ${name}`);
  }
  return out;
}
