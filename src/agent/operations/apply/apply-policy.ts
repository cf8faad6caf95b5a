// Decides, per manifest, how the agent applies it: server-side or client-side, whether to clear
// managed fields, whether to add field defaults. Variant B resolves the three `serverSideApply`
// settings, the per-kind entries and the manifest's annotations (ours, and Spinnaker's
// `strategy.spinnaker.io/server-side-apply`); A and C use the two skip settings.
import { type AccountConfig, type AgentConfig, serverSideApplySettings } from '../../config/index.ts';
import { SPINNAKER_SSA_ANNOTATION } from './deploy-strategy.ts';

export const SSA_ANNOTATION = 'agent-orch.vendor.io/serverside-apply';
export const CLEAR_MANAGED_FIELDS_ANNOTATION = 'agent-orch.vendor.io/ssa-clear-managed-fields';
export const MANIFEST_DEFAULTS_ANNOTATION = 'agent-orch.vendor.io/ssa-manifest-defaults';

export interface ApplyPolicy {
  serverSide: boolean;
  /** Server-side apply takes conflicting fields over (`force-conflicts`). */
  forceConflicts: boolean;
  clearManagedFields: boolean;
  manifestDefaults: boolean;
}

type Policy = 'always' | 'never' | 'allowed';

export interface ManifestFacts {
  kind: string;
  /** `group` of the apiVersion; '' for the core group. */
  group: string;
  annotations: Record<string, string>;
}

function enabledByAnnotation(annotations: Record<string, string>, key: string): boolean {
  return annotations[key]?.trim().toLowerCase() === 'enabled';
}

/**
 * Spinnaker's `strategy.spinnaker.io/server-side-apply`: `true` or `force-conflicts` count as our
 * per-manifest annotation set to `enabled` (so the settings still decide first, as the spec says),
 * and `force-conflicts` takes over fields other managers own.
 */
function spinnakerServerSide(annotations: Record<string, string>): { enabled: boolean; force: boolean } {
  const value = annotations[SPINNAKER_SSA_ANNOTATION]?.trim().toLowerCase();
  return { enabled: value === 'true' || value === 'force-conflicts', force: value === 'force-conflicts' };
}

/**
 * One setting: the global value decides unless it is `allowed`; then the kind entry decides unless it
 * is `allowed`; then the annotation (`enabled`) decides.
 */
export function resolveSetting(global: Policy, kindEntry: Policy | undefined, annotated: boolean): boolean {
  if (global !== 'allowed') return global === 'always';
  if (kindEntry !== undefined && kindEntry !== 'allowed') return kindEntry === 'always';
  return annotated;
}

/** Kind entries name a kind as `Deployment`, `deployment` or `Deployment.apps`. */
function matchesKind(entryKind: string, facts: ManifestFacts): boolean {
  const wanted = entryKind.toLowerCase();
  const kind = facts.kind.toLowerCase();
  return wanted === kind || (facts.group !== '' && wanted === `${kind}.${facts.group.toLowerCase()}`);
}

export function resolveApplyPolicy(
  config: AgentConfig,
  account: AccountConfig,
  facts: ManifestFacts,
): ApplyPolicy {
  const annotations = facts.annotations;
  const ssa = serverSideApplySettings(config);
  if (ssa !== undefined) {
    const entry = ssa.kinds.find((k) => matchesKind(k.kind, facts));
    const spinnaker = spinnakerServerSide(annotations);
    const serverSide = resolveSetting(
      ssa.enabled,
      entry?.enabled,
      enabledByAnnotation(annotations, SSA_ANNOTATION) || spinnaker.enabled,
    );
    return {
      serverSide,
      forceConflicts: serverSide && spinnaker.force,
      // Clearing managed fields and adding defaults are server-side apply features.
      clearManagedFields:
        serverSide &&
        resolveSetting(
          ssa.clearManagedFields,
          entry?.clearManagedFields,
          enabledByAnnotation(annotations, CLEAR_MANAGED_FIELDS_ANNOTATION),
        ),
      manifestDefaults:
        serverSide &&
        resolveSetting(
          ssa.manifestDefaults,
          entry?.manifestDefaults,
          enabledByAnnotation(annotations, MANIFEST_DEFAULTS_ANNOTATION),
        ),
    };
  }
  // A and C: server-side apply unless skipped; defaults unless skipped (the spec: "true, or server-side
  // apply disabled, sends manifests as is"); these variants have no clear setting, only its annotation.
  const skipServerSide = 'skipServerSideApply' in account && account.skipServerSideApply;
  const skipDefaults = 'skipManifestDefaults' in account && account.skipManifestDefaults;
  const serverSide = !skipServerSide;
  return {
    serverSide,
    forceConflicts: serverSide && spinnakerServerSide(annotations).force,
    clearManagedFields: serverSide && enabledByAnnotation(annotations, CLEAR_MANAGED_FIELDS_ANNOTATION),
    manifestDefaults: serverSide && !skipDefaults,
  };
}
