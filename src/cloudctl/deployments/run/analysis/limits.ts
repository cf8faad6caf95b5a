// A measured value held to a query's limits, said the one way every provider's verdict reads:
// `name value > upperLimit N (where)` when it fails, `name value ≥ L and ≤ U` when it passes.
export interface Limits {
  upperLimit?: number | undefined;
  lowerLimit?: number | undefined;
}

export interface Verdict {
  passed: boolean;
  words: string;
}

/**
 * `label` names the query; `places` (with its leading space) says where the failing value was found,
 * said only when it fails: a kept limit needs no pointing at.
 */
export function holdToLimits(label: string, value: number, limits: Limits, places = ''): Verdict {
  const { upperLimit: upper, lowerLimit: lower } = limits;
  if (upper !== undefined && value > upper)
    return { passed: false, words: `${label} ${value} > upperLimit ${upper}${places}` };
  if (lower !== undefined && value < lower)
    return { passed: false, words: `${label} ${value} < lowerLimit ${lower}${places}` };
  const kept = [lower === undefined ? '' : `≥ ${lower}`, upper === undefined ? '' : `≤ ${upper}`]
    .filter((s) => s !== '')
    .join(' and ');
  return { passed: true, words: `${label} ${value} ${kept}`.trim() };
}
