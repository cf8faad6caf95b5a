// The watch path's view of an object's bytes: the head it reads and the scrub it cuts must give
// what parsing the object and scrubbing it (scrubObject) gives, wherever managedFields sit.
import { describe, expect, it } from 'vitest';
import { parseWatchLine } from '../../src/kube/watch-event.ts';
import { scanObjectHead } from '../../src/lib/object-head.ts';
import { scrubObject, scrubObjectBytes } from '../../src/lib/object-scrub.ts';

const managedFields = [
  { manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } },
];
const CONFIG_MAP_TYPE = { apiVersion: 'v1', kind: 'ConfigMap' };

function configMap(metadata: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata,
    // A value holding what looks like members the scan reads: only the top level's count.
    data: { a: '{"metadata":{"name":"not-me"},"managedFields":[]}', quote: 'say "hi"\\' },
  };
}

const identity = { name: 'web "one"', namespace: 'shop', uid: 'u-1', resourceVersion: '42' };
const LAYOUTS: Array<[string, Record<string, unknown>]> = [
  ['managedFields last', { ...identity, managedFields }],
  ['managedFields first', { managedFields, ...identity }],
  [
    'managedFields in the middle',
    { name: identity.name, managedFields, namespace: 'shop', uid: 'u-1', resourceVersion: '42' },
  ],
  ['managedFields alone', { managedFields }],
  ['no managedFields', { ...identity, annotations: { a: 'b' } }],
];

describe('scanObjectHead and scrubObjectBytes', () => {
  it.each(LAYOUTS)('read and scrub as a parse would: %s', (_, metadata) => {
    const object = configMap(metadata);
    const bytes = Buffer.from(JSON.stringify(object));
    const head = scanObjectHead(bytes);
    expect(head).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: typeof metadata.name === 'string' ? metadata.name : '',
      namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
      resourceVersion: typeof metadata.resourceVersion === 'string' ? metadata.resourceVersion : '',
    });
    const scrubbed = scrubObjectBytes(bytes, head, CONFIG_MAP_TYPE);
    expect(JSON.parse(Buffer.from(scrubbed, 'latin1').toString())).toEqual(scrubObject(object));
    // Where the drift check reads: the managedFields and annotations values, as a parse finds them.
    const fields = head.managedFields;
    expect(fields && JSON.parse(bytes.subarray(fields.valueStart, fields.valueEnd).toString())).toEqual(
      metadata.managedFields,
    );
    const { annotationsStart: from, annotationsEnd: to } = head;
    expect(from < 0 ? undefined : JSON.parse(bytes.subarray(from, to).toString())).toEqual(
      metadata.annotations,
    );
  });

  it('adds the apiVersion and kind a list item lacks, also to an empty object', () => {
    const item = { metadata: { name: 'a', managedFields }, data: { x: '1' } };
    const bytes = Buffer.from(JSON.stringify(item));
    const scrubbed = scrubObjectBytes(bytes, scanObjectHead(bytes), CONFIG_MAP_TYPE);
    expect(JSON.parse(Buffer.from(scrubbed, 'latin1').toString())).toEqual({
      ...scrubObject(item),
      ...CONFIG_MAP_TYPE,
    });
    const empty = Buffer.from(' { } ');
    expect(JSON.parse(scrubObjectBytes(empty, scanObjectHead(empty), CONFIG_MAP_TYPE))).toEqual(
      CONFIG_MAP_TYPE,
    );
  });

  it('blanks a Secret as scrubObject does: values and the last-applied copy', () => {
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        managedFields,
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': '{"data":{"password":"aHVudGVyMg=="}}',
        },
      },
      data: { password: 'aHVudGVyMg==' },
    };
    const bytes = Buffer.from(JSON.stringify(secret));
    const scrubbed = scrubObjectBytes(bytes, scanObjectHead(bytes), { apiVersion: 'v1', kind: 'Secret' });
    expect(scrubbed).not.toContain('aHVudGVyMg==');
    expect(JSON.parse(Buffer.from(scrubbed, 'latin1').toString())).toEqual(scrubObject(secret));
  });

  it('keeps the bytes as they came: UTF-8 beyond ASCII goes on byte for byte', () => {
    const object = configMap({ name: 'ünïcödé', managedFields, annotations: { note: '✓ 日本' } });
    const bytes = Buffer.from(JSON.stringify(object));
    const scrubbed = scrubObjectBytes(bytes, scanObjectHead(bytes), CONFIG_MAP_TYPE);
    expect(scrubbed.length).toBe(Buffer.byteLength(JSON.stringify(scrubObject(object))));
    expect(JSON.parse(Buffer.from(scrubbed, 'latin1').toString('utf8'))).toEqual(scrubObject(object));
  });

  it('refuses bytes that are not one object', () => {
    expect(() => scanObjectHead(Buffer.from('{"metadata":{"name":"a"}} {}'))).toThrow(/after the object/);
    expect(() => scanObjectHead(Buffer.from('{"metadata":{"name":"a"'))).toThrow(/at byte/);
  });
});

describe('parseWatchLine', () => {
  const object = configMap({ ...identity, managedFields });

  it('takes the object as the API server wrote it, type first', () => {
    const line = Buffer.from(JSON.stringify({ type: 'MODIFIED', object }));
    const event = parseWatchLine(line);
    expect(event?.type).toBe('MODIFIED');
    expect(JSON.parse(event?.bytes.toString() ?? '')).toEqual(object);
  });

  it('also reads an event whose object comes first, and skips blank or typeless lines', () => {
    const line = Buffer.from(`${JSON.stringify({ object, type: 'ADDED' })}  \r`);
    expect(JSON.parse(parseWatchLine(line)?.bytes.toString() ?? '')).toEqual(object);
    expect(parseWatchLine(Buffer.from('  \r'))).toBeUndefined();
    expect(parseWatchLine(Buffer.from(JSON.stringify({ type: 'NOPE', object })))).toBeUndefined();
  });
});
