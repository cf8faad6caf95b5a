// Spinnaker names an object "<kind> <name>" (`deployment web`, `Rollout.argoproj.io canary`), and
// calls its namespace the location. These helpers read that form and write it back for results.
import { z } from 'zod';
import { isRecord } from '../../../lib/is-record.ts';
import {
  manifestNameSchema,
  type ResolvedKind,
  spinnakerKind,
  splitManifestName,
} from '../../caching/index.ts';
import { type ConverterContext, PayloadError } from './converter.ts';

/** account, manifestName and location: the fields every single-object operation takes. */
export const targetFields = {
  account: z.string().min(1).describe('the account whose cluster holds the object'),
  manifestName: manifestNameSchema,
  location: z.string().default('').describe('the namespace; empty for cluster-scoped objects'),
  cloudProvider: z.string().optional().describe('ignored; always orchestrator'),
};

export { spinnakerKind, splitManifestName };

export interface Target {
  account: string;
  manifestName: string;
  location: string;
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

/** `{namespace: ["deployment web", ...]}` for a set of manifests, as results carry them. */
export function namesByNamespace(manifests: readonly unknown[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const manifest of manifests) {
    if (!isRecord(manifest) || !isRecord(manifest.metadata)) continue;
    const namespace = typeof manifest.metadata.namespace === 'string' ? manifest.metadata.namespace : '';
    const name = String(manifest.metadata.name ?? manifest.metadata.generateName ?? '');
    const kind = spinnakerKind(String(manifest.apiVersion ?? ''), String(manifest.kind ?? ''));
    out[namespace] = [...(out[namespace] ?? []), `${kind} ${name}`];
  }
  return out;
}
