import { describe, expect, it } from 'vitest';
import { parseAccount } from '../../../src/agent/config/index.ts';

describe('a dynamic account definition', () => {
  it('copied from the product we replace loads: empty values unset, list permissions, numeric roles', () => {
    const parsed = parseAccount('B', {
      name: 'copied',
      insecure: null,
      context: null,
      metrics: null,
      permissions: [{ READ: [123567] }, { WRITE: ['ops'] }],
    });
    expect(parsed).toMatchObject({
      ok: true,
      account: {
        insecure: false,
        context: '',
        metrics: false,
        permissions: { READ: ['123567'], WRITE: ['ops'] },
      },
    });
  });

  it('without a name is refused, an empty name as much as a missing one', () => {
    expect(parseAccount('C', { name: null })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^name: /),
    });
  });

  it('keeps the whitespace rule of the file', () => {
    const parsed = parseAccount('A', { name: 'a', permissions: [{ READ: ['ops team'] }] });
    expect(parsed).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^permissions.0.READ.0: .*whitespace/),
    });
  });
});
