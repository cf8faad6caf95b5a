// A plan's view of Secrets: values replaced by digests keyed per answer (equal values equal within
// one answer, different across answers), `data` and `stringData` comparable, and Secret values cut
// out of messages.
import { describe, expect, it } from 'vitest';
import { createPlanView } from '../../../src/agent/operations/plan/secret-digest.ts';
import { isRecord } from '../../../src/lib/is-record.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');
/** One value of a Secret's `data` or `stringData`. */
function value(object: Record<string, unknown>, field: 'data' | 'stringData', key: string): unknown {
  const values = object[field];
  return isRecord(values) ? values[key] : undefined;
}
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const live = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name: 's',
    managedFields: [{ manager: 'x' }],
    annotations: { [LAST_APPLIED]: '{"stringData":{"password":"correct-horse"}}', team: 'a' },
  },
  data: { password: b64('correct-horse'), user: b64('admin') },
};

describe('the plan view of a Secret', () => {
  it('digests values, the same value alike whether given as data or stringData', () => {
    const view = createPlanView();
    const shown = view.show(live);
    const given = view.show({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      stringData: { password: 'correct-horse' },
    });
    expect(JSON.stringify(shown)).not.toContain('correct-horse');
    expect(JSON.stringify(shown)).not.toContain(b64('correct-horse'));
    expect(shown).toMatchObject({ data: { password: expect.stringMatching(/^hmac:[\w-]{43}$/) } });
    expect(value(given, 'stringData', 'password')).toBe(value(shown, 'data', 'password'));
    expect(value(shown, 'data', 'user')).not.toBe(value(shown, 'data', 'password'));
    expect(shown).toHaveProperty(['metadata', 'annotations', LAST_APPLIED], expect.stringMatching(/^hmac:/));
    expect(shown).toHaveProperty(['metadata', 'annotations', 'team'], 'a');
    expect(shown).not.toHaveProperty('metadata.managedFields');
  });

  it('keys every view anew, so digests do not compare across answers', () => {
    const one = createPlanView().show(live);
    const two = createPlanView().show(live);
    expect(one).toHaveProperty('data.user');
    expect(value(one, 'data', 'user')).not.toBe(value(two, 'data', 'user'));
  });

  it('leaves other kinds as they are, managedFields aside', () => {
    const shown = createPlanView().show({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', managedFields: [] },
      data: { a: 'correct-horse' },
    });
    expect(shown).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'correct-horse' },
    });
  });

  it("cuts a Secret's values out of a message about it", () => {
    const text = 'denied: password correct-horse is too weak (Y29ycmVjdC1ob3JzZQ==)';
    const redacted = createPlanView().redact(text, [live, null]);
    expect(redacted).toBe('denied: password [secret value] is too weak ([secret value])');
  });
});
