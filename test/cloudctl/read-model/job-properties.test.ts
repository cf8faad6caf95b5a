// A Job publishes result properties as marked lines in its log.
import { describe, expect, it } from 'vitest';
import { jobProperties } from '../../../src/cloudctl/read-model/job-properties.ts';

describe('job result properties', () => {
  it('reads SPINNAKER_PROPERTY_ lines and SPINNAKER_CONFIG_JSON objects, later lines winning', () => {
    const log = [
      'starting migration',
      'SPINNAKER_PROPERTY_VERSION=1.2.3',
      'SPINNAKER_PROPERTY_ROWS=10',
      'SPINNAKER_CONFIG_JSON={"rows": 12, "tables": ["a", "b"]}',
      'SPINNAKER_CONFIG_JSON=not json',
      'SPINNAKER_PROPERTY_EMPTY=\r',
      'done',
    ].join('\n');
    expect(jobProperties(log)).toEqual({ version: '1.2.3', rows: 12, tables: ['a', 'b'], empty: '' });
  });

  it('publishes nothing from a log without marked lines', () => {
    expect(jobProperties('hello\nSPINNAKER_PROPERTY_=x\n')).toEqual({});
  });
});
