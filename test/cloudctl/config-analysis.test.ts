// cloudctl's `analysis.providers`: a Prometheus provider's entry is checked (its name not `builtin`,
// names unique, an http(s) URL), defaults are filled, and `config print` never shows its token.
import { describe, expect, it } from 'vitest';
import { cloudctlConfigSchema, printEffectiveConfig } from '../../src/cloudctl/config/index.ts';

const prom = { name: 'prom-prod', type: 'prometheus', baseUrl: 'https://prometheus.example:9090' };

function problems(providers: unknown[]): string[] {
  const parsed = cloudctlConfigSchema.safeParse({ analysis: { providers } });
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe("cloudctl's analysis providers", () => {
  it('fills a provider entry’s defaults', () => {
    const config = cloudctlConfigSchema.parse({ analysis: { providers: [prom] } });
    expect(config.analysis.providers).toEqual([{ ...prom, timeoutSeconds: 10 }]);
  });

  it('refuses the built-in name, a name given twice and a URL that is not http(s)', () => {
    expect(problems([{ ...prom, name: 'builtin' }])).toEqual([
      "analysis.providers.0.name: 'builtin' is the built-in provider's name; choose another",
    ]);
    expect(problems([prom, prom])).toEqual([
      "analysis.providers.1.name: provider 'prom-prod' is already analysis.providers[0]",
    ]);
    expect(problems([{ ...prom, baseUrl: 'ftp://prometheus.example' }])).toEqual([
      'analysis.providers.0.baseUrl: expected an http:// or https:// URL',
    ]);
  });

  it('never prints the bearer token', () => {
    const config = cloudctlConfigSchema.parse({
      analysis: { providers: [{ ...prom, bearerToken: 'prom-secret-4f1a' }] },
    });
    const printed = printEffectiveConfig(config);
    expect(printed).toContain('prom-prod');
    expect(printed).not.toContain('prom-secret-4f1a');
  });
});
