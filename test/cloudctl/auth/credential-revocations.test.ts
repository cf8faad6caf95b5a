// The word that a credential was withdrawn reaches exactly the streams opened with it, once, and a
// stream that ended stops listening, so a long-lived cloudctl holds no listener per stream it served.
import { describe, expect, it } from 'vitest';
import { CredentialRevocations } from '../../../src/cloudctl/auth/index.ts';

describe('CredentialRevocations', () => {
  it('calls the listeners of the revoked credential only, once each', () => {
    const revocations = new CredentialRevocations();
    const heard: string[] = [];
    revocations.watch('a', () => heard.push('a1'));
    revocations.watch('a', () => heard.push('a2'));
    revocations.watch('b', () => heard.push('b1'));
    revocations.revoked('a');
    expect(heard).toEqual(['a1', 'a2']);
    revocations.revoked('a');
    expect(heard).toEqual(['a1', 'a2']);
    expect(revocations.size).toBe(1);
  });

  it('forgets a listener that stopped listening, and a stop called twice is harmless', () => {
    const revocations = new CredentialRevocations();
    const heard: string[] = [];
    const stop = revocations.watch('a', () => heard.push('gone'));
    revocations.watch('a', () => heard.push('kept'));
    stop();
    stop();
    expect(revocations.size).toBe(1);
    revocations.revoked('a');
    expect(heard).toEqual(['kept']);
    expect(revocations.size).toBe(0);
  });

  it('lets a listener stop listening while being called (a stream ending as it is closed)', () => {
    const revocations = new CredentialRevocations();
    const stops: Array<() => void> = [];
    let calls = 0;
    for (let i = 0; i < 3; i++)
      stops.push(
        revocations.watch('a', () => {
          calls++;
          for (const stop of stops) stop();
        }),
      );
    revocations.revoked('a');
    expect(calls).toBe(3);
    expect(revocations.size).toBe(0);
  });
});
