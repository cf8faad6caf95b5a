// Kubernetes resource quantities ("250m", "64Mi", "1.5", "123456789n", "1e3") read exactly, and the
// two figures `kubectl top` prints of usage: CPU in whole millicores and memory in whole MiB. Exact
// (a fraction of big integers), because in floating point "0.29" millicores times 1000 is not 290 and
// the rounding up kubectl does would show 291.

/** A quantity as the exact fraction numerator / denominator (denominator > 0). */
export interface ExactQuantity {
  numerator: bigint;
  denominator: bigint;
}

const SUFFIX_POWERS: Readonly<Record<string, { base: bigint; power: number }>> = {
  n: { base: 10n, power: -9 },
  u: { base: 10n, power: -6 },
  m: { base: 10n, power: -3 },
  '': { base: 10n, power: 0 },
  k: { base: 10n, power: 3 },
  M: { base: 10n, power: 6 },
  G: { base: 10n, power: 9 },
  T: { base: 10n, power: 12 },
  P: { base: 10n, power: 15 },
  E: { base: 10n, power: 18 },
  Ki: { base: 2n, power: 10 },
  Mi: { base: 2n, power: 20 },
  Gi: { base: 2n, power: 30 },
  Ti: { base: 2n, power: 40 },
  Pi: { base: 2n, power: 50 },
  Ei: { base: 2n, power: 60 },
};

// The grammar of k8s.io/apimachinery's resource.Quantity: a signed decimal, then a binary or
// decimal SI suffix, or a decimal exponent.
const QUANTITY = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

/** The quantity's exact value; undefined for text that is not a quantity. */
export function parseQuantity(text: string): ExactQuantity | undefined {
  const match = QUANTITY.exec(text.trim());
  if (match === null) return undefined;
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0') * (sign === '-' ? -1n : 1n);
  let denominator = 10n ** BigInt(fraction.length);
  const { base, power } = /^[eE]/.test(suffix)
    ? { base: 10n, power: Number(suffix.slice(1)) }
    : (SUFFIX_POWERS[suffix] ?? { base: 10n, power: 0 });
  if (power >= 0) numerator *= base ** BigInt(power);
  else denominator *= base ** BigInt(-power);
  return { numerator, denominator };
}

/** Rounds towards +∞, as resource.Quantity's Value and MilliValue do. */
function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return numerator % denominator > 0n ? quotient + 1n : quotient;
}

/** CPU as `kubectl top` prints it: whole millicores rounded up, e.g. "250m". */
export function formatMilliCores(quantity: string): string | undefined {
  const q = parseQuantity(quantity);
  return q === undefined ? undefined : `${ceilDiv(q.numerator * 1000n, q.denominator)}m`;
}

/** Memory as `kubectl top` prints it: bytes rounded up, then whole MiB rounded down, e.g. "64Mi". */
export function formatMebibytes(quantity: string): string | undefined {
  const q = parseQuantity(quantity);
  return q === undefined ? undefined : `${ceilDiv(q.numerator, q.denominator) / (1n << 20n)}Mi`;
}
