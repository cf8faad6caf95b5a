// The JSON scanner against JSON.parse: it accepts what JSON.parse accepts as one object and refuses
// what it refuses (in strict mode), and finds members where a parse would.
import { describe, expect, it } from 'vitest';
import { assertJsonObject, forEachMember, pastValue, skipValue } from '../../src/lib/json-scan.ts';

const VALID = [
  '{}',
  ' { } ',
  '{"a":1}',
  '{"a":-0.5e+10,"b":true,"c":false,"d":null,"e":"x","f":[],"g":{}}',
  '{"q":"a \\"quoted\\" word","s":"back\\\\slash","u":"\\u00e9\\n\\t"}',
  '{"s":"ends with a backslash\\\\"}',
  '{"nested":{"metadata":{"name":"inner"}},"metadata":{"name":"outer"}}',
  '{"arr":[1,[2,[3,{"x":[]}]],"y"]}',
  '{\n  "pretty": [ 1 , 2 ],\r\n\t"x" : { }\n}',
  `{"long":"${'x'.repeat(5000)}","é":"ünïcödé ✓"}`,
  `{"escaped":"${'\\"'.repeat(40)}"}`,
  // Past a string's first 32 bytes its end and escapes are found by native searches.
  `{"long":"${'x'.repeat(40)}\\"${'y'.repeat(40)}\\\\","next":"${'z'.repeat(40)}\\u00e9\\n"}`,
  `{"long":"${'x'.repeat(40)}\\\\","after":"a \\\\ b"}`,
];

const INVALID = [
  '',
  '[]',
  '"a string"',
  '{"a":1',
  '{"a":1}}',
  '{"a":1} x',
  '{"a" 1}',
  '{"a":1,}',
  '{a:1}',
  '{"a":tru}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":"unterminated}',
  '{"a":"bad \\q escape"}',
  '{"a":"bad \\u12g4"}',
  '{"a":"raw\ncontrol"}',
  '{"a":[1,2}',
  '{"a":[1,]}',
  `{"a":"${'x'.repeat(40)}\\q escape"}`,
  `{"a":"${'x'.repeat(40)}\\u12g4"}`,
  `{"a":"${'x'.repeat(40)}\u0001 control"}`,
  `{"a":"${'x'.repeat(40)}\ttab"}`,
  `{"a":"${'x'.repeat(40)}`,
  `{"a":"${'x'.repeat(40)}\\"}`,
  `{"a":"${'x'.repeat(40)}\\u00"}`,
];

describe('assertJsonObject (strict)', () => {
  it.each(VALID)('accepts what JSON.parse accepts: %#', (text) => {
    expect(JSON.parse(text)).toBeTypeOf('object');
    expect(() => assertJsonObject(Buffer.from(text))).not.toThrow();
    expect(() => assertJsonObject(Buffer.from(text), text)).not.toThrow();
  });

  it.each(INVALID)('refuses what is not one JSON object: %#', (text) => {
    expect(() => assertJsonObject(Buffer.from(text))).toThrow(/at byte \d+/);
    expect(() => assertJsonObject(Buffer.from(text), text)).toThrow(/at byte \d+/);
  });

  it('takes nesting 500 deep and refuses more than 512 levels, rather than risk the stack', () => {
    const nested = (depth: number) => Buffer.from(`{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(() => assertJsonObject(nested(500))).not.toThrow();
    expect(() => assertJsonObject(nested(2000))).toThrow(/nested too deeply/);
  });
});

describe('forEachMember', () => {
  it('visits the top-level members only, each with the span JSON.parse gives its value', () => {
    for (const text of VALID) {
      const b = Buffer.from(text);
      const seen: Array<[string, unknown]> = [];
      forEachMember(b, b.indexOf('{'), true, (keyStart, keyEnd, valueStart) => {
        const valueEnd = pastValue(b, valueStart, true, 1);
        seen.push([
          JSON.parse(b.toString('utf8', keyStart, keyEnd)),
          JSON.parse(b.toString('utf8', valueStart, valueEnd)),
        ]);
        return valueEnd;
      });
      expect(seen).toEqual(Object.entries(JSON.parse(text)));
    }
  });

  it('finds the same members without strict checks, for trusted input', () => {
    for (const text of VALID) {
      const b = Buffer.from(text);
      const keys: string[] = [];
      forEachMember(b, b.indexOf('{'), false, (keyStart, keyEnd, valueStart) => {
        keys.push(JSON.parse(b.toString('utf8', keyStart, keyEnd)));
        return pastValue(b, valueStart, false, 1);
      });
      expect(keys).toEqual(Object.keys(JSON.parse(text)));
    }
  });
});

describe('skipValue (by brackets)', () => {
  it('ends each valid object where it ends, whatever its strings hold', () => {
    for (const text of [
      ...VALID,
      JSON.stringify({ a: '}{][', b: '\\' }),
      JSON.stringify({ a: '\\"}]', b: [{ c: '"{' }] }),
      JSON.stringify({ 'k:{"name":"app"}': { '.': {} } }),
    ]) {
      const b = Buffer.from(`${text}, "next": 1`);
      const start = b.indexOf('{');
      expect(skipValue(b, start)).toBe(pastValue(b, start, true));
    }
  });

  it('ends strings, numbers and literals where pastValue does', () => {
    for (const text of [JSON.stringify('a \\'), JSON.stringify('}"]'), '-1.5e3', 'true', 'null']) {
      const b = Buffer.from(`${text},`);
      expect(skipValue(b, 0)).toBe(text.length);
    }
  });

  it('refuses a value that does not end', () => {
    expect(() => skipValue(Buffer.from('{"a":[1,2}'), 0)).toThrow(/unterminated value/);
    expect(() => skipValue(Buffer.from('{"a":"}'), 0)).toThrow(/unterminated string/);
  });
});
