// Dynamic manifest targets: which version of a cluster "newest", "second_newest", "oldest",
// "largest" and "smallest" name, by sequence or creation time and by replicas.
import { describe, expect, it } from 'vitest';
import { type Criteria, pickTarget } from '../../../src/cloudctl/manifests/index.ts';

const version = (
  name: string,
  sequence: number | null,
  createdTime: number | null,
  replicas: number | null,
) => ({
  name,
  sequence,
  createdTime,
  replicas,
});

describe('dynamic manifest targets', () => {
  // Created in one second (equal times): only the sequence tells them apart.
  const v0 = version('web-v000', 0, 1_000, 3);
  const v1 = version('web-v001', 1, 1_000, 1);
  const v2 = version('web-v002', 2, 1_000, 2);
  const pick = (criteria: Criteria, all = [v2, v0, v1]) => pickTarget(all, criteria)?.name;

  it('orders versions by sequence: newest, second newest, oldest', () => {
    expect(pick('newest')).toBe('web-v002');
    expect(pick('second_newest')).toBe('web-v001');
    expect(pick('oldest')).toBe('web-v000');
  });

  it('orders by replicas for largest and smallest', () => {
    expect(pick('largest')).toBe('web-v000');
    expect(pick('smallest')).toBe('web-v001');
  });

  it('without sequences, orders by creation time, then name', () => {
    const a = version('cfg-b', null, 5_000, null);
    const b = version('cfg-a', null, 9_000, null);
    const c = version('cfg-c', null, 9_000, null);
    expect(pickTarget([c, a, b], 'newest')?.name).toBe('cfg-c');
    expect(pickTarget([c, a, b], 'oldest')?.name).toBe('cfg-b');
  });

  it('equal sizes go oldest first, so largest is the newest of the largest', () => {
    const small = version('web-v000', 0, 1, 2);
    const large = version('web-v001', 1, 2, 2);
    expect(pickTarget([large, small], 'largest')?.name).toBe('web-v001');
    expect(pickTarget([large, small], 'smallest')?.name).toBe('web-v000');
  });

  it('finds nothing where the cluster has too few versions', () => {
    expect(pick('second_newest', [v0])).toBeUndefined();
    expect(pick('newest', [])).toBeUndefined();
    expect(pick('oldest', [v0])).toBe('web-v000');
  });
});
