import { describe, expect, it } from 'vitest';
import { defaultNamespace, namespaceAllowed } from '../../../src/agent/accounts/index.ts';

const account = (namespaces: string[], omitNamespaces: string[] = []) => ({ namespaces, omitNamespaces });

describe('the default namespace of an account', () => {
  it("is the kubeconfig context's namespace when the account allows it", () => {
    expect(defaultNamespace(account([]), 'team-a')).toBe('team-a');
    expect(defaultNamespace(account(['team-a', 'team-b']), 'team-b')).toBe('team-b');
  });

  it('is the first listed namespace when the context names none, or one the account leaves out', () => {
    expect(defaultNamespace(account(['team-a', 'team-b']), undefined)).toBe('team-a');
    expect(defaultNamespace(account(['team-a']), 'team-c')).toBe('team-a');
  });

  it('is `default` when neither the context nor a list names one', () => {
    expect(defaultNamespace(account([]), undefined)).toBe('default');
    expect(defaultNamespace(account([], ['team-a']), 'team-a')).toBe('default');
  });
});

describe('the namespaces an account may write to', () => {
  it('are those of its allow-list (all when empty) minus those it omits', () => {
    expect(namespaceAllowed(account([]), 'anything')).toBe(true);
    expect(namespaceAllowed(account(['a']), 'a')).toBe(true);
    expect(namespaceAllowed(account(['a']), 'b')).toBe(false);
    expect(namespaceAllowed(account([], ['kube-system']), 'kube-system')).toBe(false);
  });
});
