// How `cloudctl plan` prints a plan: kubectl diff's '-'/'+' lines per changed path under a header per
// object, red and green only when asked (a terminal without NO_COLOR), a Secret's values never shown
// even when the record carries them, the API server's refusal and the missing permissions in plain
// words, a summary, the plan id and the command that applies it.
import { describe, expect, it } from 'vitest';
import { planLines, valueText, wantsColour } from '../../../src/cloudctl/cli/plan/index.ts';
import { type PlanRecord, planRecordSchema } from '../../../src/cloudctl/plans/plan-record.ts';

const RED = '\u001b[31m';
const GREEN = '\u001b[32m';
const APPLY = 'cloudctl apply-plan p-1 --server http://cloudctl:7002';

const object = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  namespace: 'shop',
  name: 'web',
  action: 'update',
  resourceVersion: '812',
  diff: [
    { path: 'spec.template.spec.containers[0].image', before: 'nginx:1.25', after: 'nginx:1.27' },
    { path: 'spec.replicas', before: 2, after: 3 },
    { path: 'metadata.labels.tier', after: 'front' },
    { path: 'metadata.annotations.old', before: 'x' },
  ],
  dryRun: { allowed: true },
  access: [{ verb: 'patch', group: 'apps', resource: 'deployments', namespace: 'shop', allowed: true }],
  unknown: [],
};

function plan(overrides: Partial<Record<string, unknown>> = {}): PlanRecord {
  return planRecordSchema.parse({
    id: 'p-1',
    source: 'operations',
    createdBy: 'dana',
    createdAt: '2026-11-28T21:00:00.000Z',
    expiresAt: '2026-11-28T22:00:00.000Z',
    state: 'planned',
    accounts: ['prod'],
    operations: [
      {
        name: 'deployManifest',
        account: 'prod',
        description: 'Deploy manifests',
        prepared: { manifests: [], boundArtifacts: [] },
        objects: [object],
        unknown: [],
      },
    ],
    summary: { create: 0, update: 1, unchanged: 0, delete: 0, refused: 0, forbidden: 0 },
    resourceUri: '/plans/p-1',
    applyUri: '/plans/p-1/apply',
    ...overrides,
  });
}

function withObject(
  changes: Record<string, unknown>,
  summary: Partial<PlanRecord['summary']> = {},
): PlanRecord {
  const base = plan();
  const [operation] = base.operations;
  if (operation === undefined) throw new Error('fixture has an operation');
  return planRecordSchema.parse({
    ...base,
    operations: [{ ...operation, objects: [{ ...object, ...changes }] }],
    summary: { ...base.summary, ...summary },
  });
}

describe('the plan printer', () => {
  it('prints a header per object, a - line before and a + line after per changed path, without colour', () => {
    const text = planLines(plan(), { colour: false, applyCommand: APPLY }).join('\n');
    expect(text).toBe(
      [
        '# deployManifest (account prod): Deploy manifests',
        'update Deployment shop/web (account prod)',
        '  - spec.template.spec.containers[0].image: nginx:1.25',
        '  + spec.template.spec.containers[0].image: nginx:1.27',
        '  - spec.replicas: 2',
        '  + spec.replicas: 3',
        '  + metadata.labels.tier: front',
        '  - metadata.annotations.old: x',
        '',
        'Plan: 0 to create, 1 to update, 0 unchanged, 0 to delete.',
        'Plan p-1, until 2026-11-28T22:00:00.000Z. To apply exactly this plan:',
        `  ${APPLY}`,
      ].join('\n'),
    );
    expect(text).not.toContain('\u001b[');
  });

  it('colours the - lines red and the + lines green, and nothing else, when asked', () => {
    const lines = planLines(plan(), { colour: true, applyCommand: APPLY });
    expect(lines).toContain(`  ${RED}- spec.template.spec.containers[0].image: nginx:1.25\u001b[0m`);
    expect(lines).toContain(`  ${GREEN}+ spec.template.spec.containers[0].image: nginx:1.27\u001b[0m`);
    const coloured = lines.filter((line) => line.includes('\u001b['));
    expect(coloured).toHaveLength(6);
    expect(lines.find((line) => line.startsWith('update'))).toBe('update Deployment shop/web (account prod)');
  });

  it('shows a Secret change as (hidden), whatever values the record carries', () => {
    const secret = withObject({
      apiVersion: 'v1',
      kind: 'Secret',
      name: 'db',
      diff: [{ path: 'data.password', before: 'aHVudGVyMg==', after: 'c3dvcmRmaXNo', secret: true }],
    });
    const text = planLines(secret, { colour: false, applyCommand: APPLY }).join('\n');
    expect(text).toContain('  - data.password: (hidden)\n  + data.password: (hidden)');
    expect(text).not.toContain('aHVudGVyMg==');
    expect(text).not.toContain('c3dvcmRmaXNo');
  });

  it("hides a Secret's data even when the server did not flag the change as secret", () => {
    const unflagged = withObject({
      apiVersion: 'v1',
      kind: 'Secret',
      name: 'db',
      diff: [
        { path: 'data.password', before: 'aHVudGVyMg==', after: 'c3dvcmRmaXNo' },
        { path: 'stringData["api.key"]', after: 'plain-key' },
        { path: 'metadata.labels.tier', after: 'db' },
      ],
    });
    const text = planLines(unflagged, { colour: false, applyCommand: APPLY }).join('\n');
    expect(text).toContain('  - data.password: (hidden)\n  + data.password: (hidden)');
    expect(text).toContain('  + stringData["api.key"]: (hidden)');
    expect(text).toContain('  + metadata.labels.tier: db');
    for (const value of ['aHVudGVyMg==', 'c3dvcmRmaXNo', 'plain-key']) expect(text).not.toContain(value);
  });

  it('prints a string with a line break, an escape sequence or edge blanks, or one that reads as a number, as JSON; other strings as they are', () => {
    expect(valueText('nginx:1.27')).toBe('nginx:1.27');
    expect(valueText('a\nb')).toBe('"a\\nb"');
    expect(valueText('\u001b[2Jgotcha')).toBe('"\\u001b[2Jgotcha"');
    expect(valueText(' padded')).toBe('" padded"');
    expect(valueText('')).toBe('""');
    expect(valueText('3')).toBe('"3"');
    expect(valueText(3)).toBe('3');
    expect(valueText('true')).toBe('"true"');
    expect(valueText({ cpu: '100m' })).toBe('{"cpu":"100m"}');
  });

  it("prints the API server's refusal with its message, and each write the agent may not do", () => {
    const refused = withObject(
      {
        dryRun: {
          allowed: false,
          reason: 'Invalid',
          message: "ValidatingAdmissionPolicy 'no-latest' denied request: images must be pinned",
        },
        access: [
          { verb: 'patch', group: 'apps', resource: 'deployments', namespace: 'shop', allowed: true },
          {
            verb: 'delete',
            group: '',
            resource: 'secrets',
            namespace: 'shop',
            allowed: false,
            reason: 'no RBAC rule',
          },
        ],
      },
      { refused: 1, forbidden: 1 },
    );
    const lines = planLines(refused, { colour: true, applyCommand: APPLY });
    expect(lines).toContain(
      "  ! refused by the API server (Invalid): ValidatingAdmissionPolicy 'no-latest' denied request: images must be pinned",
    );
    expect(lines).toContain('  ! the agent may not delete secrets in namespace shop: no RBAC rule');
    expect(lines.join('\n')).not.toContain('may not patch');
    expect(lines).toContain(
      "Plan: 0 to create, 1 to update, 0 unchanged, 0 to delete; 1 refused by the API server's dry run, 1 needing permissions the agent lacks.",
    );
  });

  it('says what is not known, and marks an object the dry run leaves as it is', () => {
    const job = withObject({
      kind: 'Job',
      name: 'migrate',
      action: 'unchanged',
      diff: [],
      unknown: ["the Job's outcome"],
    });
    const lines = planLines(job, { colour: false, applyCommand: APPLY });
    expect(lines).toEqual(
      expect.arrayContaining([
        'unchanged Job shop/migrate (account prod)',
        '  no changes',
        "  ? not known until it runs: the Job's outcome",
      ]),
    );
  });

  it('names the task of a plan applied already, and an expired plan says to plan again, without the apply command', () => {
    const applied = plan({
      state: 'applied',
      applied: { id: 't-9', resourceUri: '/task/t-9', by: 'dana', at: '2026-11-28T21:05:00.000Z' },
    });
    const appliedText = planLines(applied, { colour: false, applyCommand: APPLY }).join('\n');
    expect(appliedText).toContain('Plan p-1 was applied by dana at 2026-11-28T21:05:00.000Z: /task/t-9');
    expect(appliedText).not.toContain(APPLY);
    const expired = planLines(plan({ state: 'expired' }), { colour: false, applyCommand: APPLY }).join('\n');
    expect(expired).toContain('Plan p-1 expired at 2026-11-28T22:00:00.000Z; plan again.');
    expect(expired).not.toContain(APPLY);
  });

  it('colours only a terminal, and never with NO_COLOR set to anything but the empty string', () => {
    expect(wantsColour({}, true)).toBe(true);
    expect(wantsColour({}, false)).toBe(false);
    expect(wantsColour({ NO_COLOR: '1' }, true)).toBe(false);
    expect(wantsColour({ NO_COLOR: '' }, true)).toBe(true);
  });
});
