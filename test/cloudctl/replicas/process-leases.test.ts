// Leases held in the process (cloudctl on its embedded database): the database leases' rules, on the
// process's clock. A live owner's lease holds; an expired one is free to claim; each kind is its own.
import { describe, expect, it } from 'vitest';
import { ProcessLeaseStore } from '../../../src/cloudctl/replicas/index.ts';

describe('ProcessLeaseStore', () => {
  it("frees a lease once it expires, and keeps each kind's leases apart", async () => {
    let now = 1_000;
    const store = new ProcessLeaseStore(() => now);
    const a = store.leases('task', 'replica-a', 100);
    const b = store.leases('task', 'replica-b', 100);
    expect(await a.claim('t1')).toBe(true);
    expect(await a.claim('t1')).toBe(true);
    expect(await b.claim('t1')).toBe(false);
    now += 100;
    expect(await b.claim('t1')).toBe(false);
    // Renewed, it lasts its whole time again from now.
    expect(await a.renew(['t1', 'other'])).toEqual(['t1']);
    now += 100;
    expect(await b.claim('t1')).toBe(false);
    now += 1;
    expect(await b.claim('t1')).toBe(true);
    expect(await a.renew(['t1'])).toEqual([]);
    // Another kind of work under the same key is another lease.
    expect(await store.leases('deployment', 'replica-a', 100).claim('t1')).toBe(true);
    await b.release('t1');
    expect(await a.claim('t1')).toBe(true);
  });
});
