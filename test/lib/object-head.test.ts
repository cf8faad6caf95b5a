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

/** Every layout, walked and skimmed (values skipped by their brackets, as the watch reads). */
const SCANS = LAYOUTS.flatMap(([name, metadata]) => [
  [`${name}, walked`, metadata, false] as const,
  [`${name}, skimmed`, metadata, true] as const,
]);

describe('scanObjectHead and scrubObjectBytes', () => {
  it.each(SCANS)('read and scrub as a parse would: %s', (_, metadata, skim) => {
    const object = configMap(metadata);
    const bytes = Buffer.from(JSON.stringify(object));
    const head = scanObjectHead(bytes, skim);
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

  it.each([false, true])('refuses bytes that are not one object (skimmed: %s)', (skim) => {
    expect(() => scanObjectHead(Buffer.from('{"metadata":{"name":"a"}} {}'), skim)).toThrow(
      /after the object/,
    );
    expect(() => scanObjectHead(Buffer.from('{"metadata":{"name":"a"'), skim)).toThrow(/at byte/);
    expect(() => scanObjectHead(Buffer.from('{"metadata":{"name":"a"},"data":{"k":"v"}'), skim)).toThrow(
      /at byte/,
    );
  });

  it('skimmed, still reads a Pod and a Status (a 410 in the stream) as a parse would', () => {
    const pod = {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { name: 'web-0', namespace: 'shop', resourceVersion: '9', managedFields },
      spec: { containers: [{ name: 'app', args: ['--x={"a":[1]}', 'say "}]"'] }] },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const gone = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 1 (4321)',
      reason: 'Expired',
      code: 410,
    };
    for (const object of [pod, gone]) {
      const bytes = Buffer.from(JSON.stringify(object));
      expect(scanObjectHead(bytes, true)).toEqual(scanObjectHead(bytes));
      const { name, namespace, resourceVersion } = {
        name: '',
        namespace: '',
        resourceVersion: '',
        ...object.metadata,
      };
      expect(scanObjectHead(bytes, true)).toMatchObject({
        kind: object.kind,
        name,
        namespace,
        resourceVersion,
      });
    }
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

  it('an object cut from a line where another member follows it fails the skimmed head scan', () => {
    // The watch takes the object to the line's last brace but one: the scan must not pass what that
    // leaves when the API server's layout changes.
    const line = Buffer.from(`{"type":"ADDED","object":${JSON.stringify(object)},"extra":{"a":1}}`);
    const event = parseWatchLine(line);
    expect(() => scanObjectHead(event?.bytes ?? Buffer.alloc(0), true)).toThrow(/at byte/);
  });

  it('also reads an event whose object comes first, and skips blank or typeless lines', () => {
    const line = Buffer.from(`${JSON.stringify({ object, type: 'ADDED' })}  \r`);
    expect(JSON.parse(parseWatchLine(line)?.bytes.toString() ?? '')).toEqual(object);
    expect(parseWatchLine(Buffer.from('  \r'))).toBeUndefined();
    expect(parseWatchLine(Buffer.from(JSON.stringify({ type: 'NOPE', object })))).toBeUndefined();
  });
});
