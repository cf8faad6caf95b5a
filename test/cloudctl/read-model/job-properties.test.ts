// A Job publishes result properties as marked lines in its log, read by Spinnaker's rules.
import { describe, expect, it } from 'vitest';
import { jobProperties } from '../../../src/cloudctl/read-model/job-properties.ts';

describe('job result properties', () => {
  it('reads SPINNAKER_PROPERTY_ lines and SPINNAKER_CONFIG_JSON objects, later lines winning', () => {
    const log = [
      'starting migration',
      'SPINNAKER_PROPERTY_VERSION=1.2.3',
      'SPINNAKER_PROPERTY_ROWS=10',
      'SPINNAKER_CONFIG_JSON={"rows": 12, "tables": ["a", "b"], "dryRun": false}',
      'SPINNAKER_PROPERTY_Region=eu-west-1\r',
      'done',
    ].join('\n');
    expect(jobProperties(log)).toEqual({
      version: '1.2.3',
      rows: 12,
      tables: ['a', 'b'],
      dryRun: false,
      region: 'eu-west-1',
    });
  });

  it('trims lines and the parts around "=", and drops empty parts, as Spinnaker splits them', () => {
    const log = [
      '   SPINNAKER_PROPERTY_ROWS = 10   ',
      '\tSPINNAKER_PROPERTY_TWICE==x',
      '  SPINNAKER_CONFIG_JSON={"a": 1}',
      'echo SPINNAKER_PROPERTY_SAID=hi',
    ].join('\n');
    expect(jobProperties(log)).toEqual({ rows: '10', twice: 'x', a: 1, 'echo said': 'hi' });
  });

  it('publishes nothing from a property line that is not exactly one name and one value', () => {
    const log = [
      'SPINNAKER_PROPERTY_URL=https://db.example/?a=b',
      'SPINNAKER_PROPERTY_EMPTY=',
      'SPINNAKER_PROPERTY_BARE',
      'SPINNAKER_PROPERTY_KEPT=yes',
    ].join('\n');
    expect(jobProperties(log)).toEqual({ kept: 'yes' });
  });

  it('voids every property when a SPINNAKER_CONFIG_JSON line holds no JSON object', () => {
    for (const bad of ['not json', '[1, 2]', 'null', '42', '']) {
      const log = `SPINNAKER_PROPERTY_A=1\nSPINNAKER_CONFIG_JSON=${bad}\nSPINNAKER_PROPERTY_B=2\n`;
      expect(jobProperties(log), bad).toEqual({});
    }
  });

  it('keeps a "__proto__" key of the JSON as a plain property', () => {
    const properties = jobProperties('SPINNAKER_CONFIG_JSON={"__proto__": {"polluted": true}, "x": 1}');
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties).sort()).toEqual(['__proto__', 'x']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('publishes nothing from a log without marked lines', () => {
    expect(jobProperties('hello\n\n  \nSPINNAKER_CONFIG_JSON\n')).toEqual({});
  });
});
