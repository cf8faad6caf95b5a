import { describe, expect, it } from 'vitest';
import { type AgentConfig, formatIssue, loadConfig } from '../../../src/agent/config/index.ts';
import {
  CLEAR_MANAGED_FIELDS_ANNOTATION,
  MANIFEST_DEFAULTS_ANNOTATION,
  resolveApplyPolicy,
  SSA_ANNOTATION,
} from '../../../src/agent/operations/apply/apply-policy.ts';
import { writeConfig } from '../config/config-fixture.ts';

async function config(yaml: string): Promise<AgentConfig> {
  const loaded = await loadConfig(writeConfig(yaml), { fetchSecrets: false });
  if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
  return loaded.config;
}

const POLICIES = ['always', 'never', 'allowed'] as const;
const KIND_ENTRIES = ['none', 'always', 'never', 'allowed'] as const;
const ANNOTATIONS = ['absent', 'enabled', 'disabled'] as const;

/** The spec's rule as a literal table: [global][kind entry] → result for annotation absent, enabled, disabled. */
const EXPECTED: Record<
  (typeof POLICIES)[number],
  Record<(typeof KIND_ENTRIES)[number], [boolean, boolean, boolean]>
> = {
  always: {
    none: [true, true, true],
    always: [true, true, true],
    never: [true, true, true],
    allowed: [true, true, true],
  },
  never: {
    none: [false, false, false],
    always: [false, false, false],
    never: [false, false, false],
    allowed: [false, false, false],
  },
  allowed: {
    none: [false, true, false],
    always: [true, true, true],
    never: [false, false, false],
    allowed: [false, true, false],
  },
};

const SETTINGS = [
  { setting: 'enabled', annotationKey: SSA_ANNOTATION, result: 'serverSide' },
  {
    setting: 'clearManagedFields',
    annotationKey: CLEAR_MANAGED_FIELDS_ANNOTATION,
    result: 'clearManagedFields',
  },
  { setting: 'manifestDefaults', annotationKey: MANIFEST_DEFAULTS_ANNOTATION, result: 'manifestDefaults' },
] as const;

const rows = SETTINGS.flatMap((s) =>
  POLICIES.flatMap((global) =>
    KIND_ENTRIES.flatMap((entry) =>
      ANNOTATIONS.map((annotation, i) => ({
        ...s,
        global,
        entry,
        annotation,
        expected: EXPECTED[global][entry][i],
      })),
    ),
  ),
);

describe('apply policy, variant B', () => {
  it.each(rows)(
    '$setting: global $global, kind entry $entry, annotation $annotation → $expected',
    async ({ setting, annotationKey, result, global, entry, annotation, expected }) => {
      // For the two SSA features, server-side apply itself is on, so only the setting under test decides.
      const ssaOn = setting === 'enabled' ? '' : '    enabled: always\n';
      const kinds =
        entry === 'none' ? '' : `    kinds:\n      - kind: deployment\n        ${setting}: ${entry}\n`;
      const cfg = await config(
        `orchestrator:\n  serverSideApply:\n${ssaOn}    ${setting}: ${global}\n${kinds}  accounts:\n    - name: a\n`,
      );
      const annotations = annotation === 'absent' ? {} : { [annotationKey]: annotation };
      const policy = resolveApplyPolicy(cfg, cfg.orchestrator.accounts[0]!, {
        kind: 'Deployment',
        group: 'apps',
        annotations,
      });
      expect(policy[result]).toBe(expected);
    },
  );

  it('matches kind entries by singular name in any case, or as Kind.group', async () => {
    const cfg = await config(
      'orchestrator:\n  serverSideApply:\n    kinds:\n      - kind: Rollout.argoproj.io\n        enabled: always\n      - kind: CONFIGMAP\n        enabled: always\n  accounts:\n    - name: a\n',
    );
    const account = cfg.orchestrator.accounts[0]!;
    const ssa = (kind: string, group: string) =>
      resolveApplyPolicy(cfg, account, { kind, group, annotations: {} }).serverSide;
    expect(ssa('Rollout', 'argoproj.io')).toBe(true);
    expect(ssa('Rollout', 'other.io')).toBe(false);
    expect(ssa('ConfigMap', '')).toBe(true);
    expect(ssa('Secret', '')).toBe(false);
  });

  it('never clears managed fields or adds defaults under client-side apply', async () => {
    const cfg = await config(
      'orchestrator:\n  serverSideApply:\n    enabled: never\n    clearManagedFields: always\n    manifestDefaults: always\n  accounts:\n    - name: a\n',
    );
    expect(
      resolveApplyPolicy(cfg, cfg.orchestrator.accounts[0]!, {
        kind: 'Deployment',
        group: 'apps',
        annotations: {},
      }),
    ).toEqual({
      serverSide: false,
      forceConflicts: false,
      clearManagedFields: false,
      manifestDefaults: false,
    });
  });

  it("takes Spinnaker's server-side-apply annotation as ours, under the same settings", async () => {
    const allowed = await config('orchestrator:\n  accounts:\n    - name: a\n');
    const never = await config(
      'orchestrator:\n  serverSideApply:\n    enabled: never\n  accounts:\n    - name: a\n',
    );
    const policy = (cfg: AgentConfig, value: string) =>
      resolveApplyPolicy(cfg, cfg.orchestrator.accounts[0]!, {
        kind: 'Deployment',
        group: 'apps',
        annotations: { 'strategy.spinnaker.io/server-side-apply': value },
      });
    expect(policy(allowed, 'true')).toMatchObject({ serverSide: true, forceConflicts: false });
    expect(policy(allowed, 'force-conflicts')).toMatchObject({ serverSide: true, forceConflicts: true });
    expect(policy(allowed, 'false')).toMatchObject({ serverSide: false, forceConflicts: false });
    expect(policy(never, 'force-conflicts')).toMatchObject({ serverSide: false, forceConflicts: false });
  });
});

describe('apply policy, variants A and C', () => {
  it.each([
    [
      'A',
      false,
      false,
      {},
      { serverSide: true, forceConflicts: false, clearManagedFields: false, manifestDefaults: true },
    ],
    [
      'C',
      true,
      false,
      {},
      { serverSide: false, forceConflicts: false, clearManagedFields: false, manifestDefaults: false },
    ],
    [
      'A',
      false,
      true,
      {},
      { serverSide: true, forceConflicts: false, clearManagedFields: false, manifestDefaults: false },
    ],
    [
      'C',
      false,
      false,
      { [CLEAR_MANAGED_FIELDS_ANNOTATION]: 'enabled' },
      { serverSide: true, forceConflicts: false, clearManagedFields: true, manifestDefaults: true },
    ],
    [
      'A',
      true,
      false,
      { [SSA_ANNOTATION]: 'enabled' },
      { serverSide: false, forceConflicts: false, clearManagedFields: false, manifestDefaults: false },
    ],
  ] as const)(
    'variant %s, skipServerSideApply %s, skipManifestDefaults %s, annotations %j → %j',
    async (variant, skipSsa, skipDefaults, annotations, expected) => {
      const cfg = await config(
        `variant: ${variant}\norchestrator:\n  accounts:\n    - name: a\n      skipServerSideApply: ${skipSsa}\n      skipManifestDefaults: ${skipDefaults}\n`,
      );
      expect(
        resolveApplyPolicy(cfg, cfg.orchestrator.accounts[0]!, {
          kind: 'Deployment',
          group: 'apps',
          annotations,
        }),
      ).toEqual(expected);
    },
  );
});
