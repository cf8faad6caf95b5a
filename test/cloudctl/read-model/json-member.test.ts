// A top-level member's text, found without parsing the rest: only the top level counts, and
// strings (escaped quotes and braces included) never end or open anything.
import { describe, expect, it } from 'vitest';
import { indexObject } from '../../../src/cloudctl/read-model/index.ts';
import { objectMemberText } from '../../../src/cloudctl/read-model/json-member.ts';

describe('objectMemberText', () => {
  it('finds the top-level member, not a deeper one or one inside a string', () => {
    const json = JSON.stringify({
      data: { metadata: { name: 'deeper' }, text: '"metadata": {"name": "in a string"} }{' },
      spec: { template: { metadata: { labels: { a: 'b' } } } },
      metadata: { name: 'top', annotations: { note: 'brace } and quote " and \\ backslash' } },
      status: {},
    });
    expect(JSON.parse(objectMemberText(json, 'metadata') ?? 'null')).toEqual({
      name: 'top',
      annotations: { note: 'brace } and quote " and \\ backslash' },
    });
  });

  it('reads spaced-out JSON, and gives nothing for a missing, non-object or unclosed member', () => {
    expect(objectMemberText('{ "kind" : "X" , "metadata" : { "name" : "x" } }', 'metadata')).toBe(
      '{ "name" : "x" }',
    );
    expect(objectMemberText('{"kind":"X"}', 'metadata')).toBeUndefined();
    expect(objectMemberText('{"metadata":"text"}', 'metadata')).toBeUndefined();
    expect(objectMemberText('{"metadata":{"name":"x"', 'metadata')).toBeUndefined();
    expect(objectMemberText('[{"metadata":{}}]', 'metadata')).toBeUndefined();
  });

  it('lets a raw object be indexed from its metadata wherever it sits in the body', () => {
    const body = JSON.stringify({
      data: { metadata: '{"annotations":{"moniker.spinnaker.io/application":"wrong"}}' },
      metadata: { name: 'settings', uid: 'u1', annotations: { 'moniker.spinnaker.io/application': 'shop' } },
    });
    const index = indexObject({ group: '', version: 'v1', kind: 'ConfigMap', name: 'settings' }, body);
    expect(index).toMatchObject({
      role: 'raw',
      application: 'shop',
      uid: 'u1',
      cluster: 'configMap settings',
    });
  });
});
