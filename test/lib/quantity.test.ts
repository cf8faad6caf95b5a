// Quantities: read exactly in every spelling the API server accepts, and printed as kubectl top prints
// usage (CPU in millicores rounded up, memory in MiB rounded down).
import { describe, expect, it } from 'vitest';
import { formatMebibytes, formatMilliCores, parseQuantity } from '../../src/lib/quantity.ts';

describe('parseQuantity', () => {
  it('reads decimals, SI and binary suffixes and exponents exactly', () => {
    const value = (text: string) => {
      const q = parseQuantity(text);
      return q === undefined ? undefined : Number(q.numerator) / Number(q.denominator);
    };
    expect(value('250m')).toBe(0.25);
    expect(value('1.5')).toBe(1.5);
    expect(value('64Mi')).toBe(64 * 2 ** 20);
    expect(value('35651584Ki')).toBe(35651584 * 1024);
    expect(value('123456789n')).toBe(0.123456789);
    expect(value('2k')).toBe(2000);
    expect(value('1e3')).toBe(1000);
    expect(value('.5')).toBe(0.5);
    expect(value('-2')).toBe(-2);
  });

  it('refuses what is not a quantity', () => {
    for (const text of ['', 'm', '12x', '1.2.3', 'Mi64', '1 Mi']) expect(parseQuantity(text)).toBeUndefined();
  });
});

describe('as kubectl top prints usage', () => {
  it('gives CPU in whole millicores, rounded up', () => {
    expect(formatMilliCores('250m')).toBe('250m');
    // metrics-server reports nanocores: 12.000001m is 13m, as resource.Quantity's MilliValue rounds up.
    expect(formatMilliCores('12000001n')).toBe('13m');
    expect(formatMilliCores('12000000n')).toBe('12m');
    // 0.29 is not exact in floating point; read exactly, 290m.
    expect(formatMilliCores('0.29')).toBe('290m');
    expect(formatMilliCores('2')).toBe('2000m');
    expect(formatMilliCores('n/a')).toBeUndefined();
  });

  it('gives memory in whole MiB, rounded down from whole bytes', () => {
    expect(formatMebibytes('64Mi')).toBe('64Mi');
    expect(formatMebibytes('65535Ki')).toBe('63Mi');
    expect(formatMebibytes('1Gi')).toBe('1024Mi');
    expect(formatMebibytes('1048576')).toBe('1Mi');
    expect(formatMebibytes('100M')).toBe('95Mi');
  });
});
