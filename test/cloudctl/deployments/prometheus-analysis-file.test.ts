// Deployment files whose analysis names a Prometheus provider of cloudctl's config: a provider the
// config does not define is refused listing the ones it does; a PromQL template's variables and the
// context names it uses are checked where they are written; a PromQL query needs a limit. Where the
// providers are not known (the CLI, before it sends a file) any provider name passes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYMENT_YAML, DeploymentDir, SERVICE_YAML } from './deployment-files.ts';

const dir = new DeploymentDir();
beforeAll(() => dir.write('manifests/potato-facts.yaml', `${DEPLOYMENT_YAML}---\n${SERVICE_YAML}`));
afterAll(() => dir.remove());

const PROVIDERS = [
  { name: 'prom-prod', type: 'prometheus' as const },
  { name: 'prom-staging', type: 'prometheus' as const },
];

function file(analysis: string, step: string): string {
  return `application: potato-facts
targets:
  prod: {account: prod-cluster, strategy: analyzed}
manifests:
  - path: manifests/potato-facts.yaml
analysis:
${analysis}
strategies:
  analyzed:
    canary:
      steps:
        - setWeight: {weight: 25}
        - analysis:
${step}
`;
}

const GOOD = file(
  `  defaultMetricProviderName: prom-prod
  queries:
    - name: errorRate
      queryTemplate: >-
        avg_over_time(potato_error_ratio{replicaset="{{vendor.replicaSetName}}",
        namespace="{{vendor.namespace}}", team="{{context.team}}"}[{{vendor.promQlStepInterval}}])
      upperLimit: 0.05`,
  `            interval: 30
            units: seconds
            context: {team: spuds}
            queries: [errorRate, crashLoops]`,
);

describe('a deployment file with a Prometheus analysis', () => {
  it('loads when its provider is configured, and where providers are not known', async () => {
    const path = dir.write('good.yaml', GOOD);
    const { loadDeploymentFile } = await import('../../../src/cloudctl/deployments/index.ts');
    const checked = await loadDeploymentFile(path, PROVIDERS);
    expect(checked.ok, JSON.stringify(checked)).toBe(true);
    const unchecked = await dir.load('good-cli.yaml', GOOD);
    expect(unchecked.deployment.analysis.defaultMetricProviderName).toBe('prom-prod');
  });

  it('refuses a provider cloudctl does not have, listing the configured ones', async () => {
    const problems = await dir.problems('unknown.yaml', GOOD.replace('prom-prod', 'prom-prd'), PROVIDERS);
    expect(problems).toEqual([
      `${dir.root}/unknown.yaml:7:30: error: analysis.defaultMetricProviderName: unknown metric provider 'prom-prd'; did you mean 'prom-prod'? (cloudctl's config, analysis.providers, defines prom-prod, prom-staging; 'builtin' is always there)`,
    ]);
  });

  it('locates an unknown variable, a context name the step does not give, and a query without limits', async () => {
    const problems = await dir.problems(
      'bad.yaml',
      file(
        `  defaultMetricProviderName: prom-prod
  queries:
    - {name: typo, queryTemplate: 'up{rs="{{vendor.replicaSet}}"}', upperLimit: 1}
    - {name: ctx, queryTemplate: 'up{team="{{context.team}}"}', lowerLimit: 1}
    - {name: unlimited, queryTemplate: 'up'}`,
        `            metricProviderName: prom-staging
            interval: 30
            units: seconds
            queries: [ctx, unlimited]`,
      ),
      PROVIDERS,
    );
    expect(problems).toEqual([
      `${dir.root}/bad.yaml:9:36: error: analysis.queries[0].queryTemplate: a query of 'prom-prod' (PromQL): {{vendor.replicaSet}} is not a vendor variable (applicationName, environmentName, accountName, namespace, deploymentId, replicaSetName, previousReplicaSetName, version, previousVersion, promQlStepInterval, intervalSeconds)`,
      `${dir.root}/bad.yaml:11:7: error: analysis.queries[2]: query 'unlimited' of 'prom-prod' needs upperLimit or lowerLimit: without one it cannot fail`,
      `${dir.root}/bad.yaml:21:23: error: strategies.analyzed.canary.steps[1].analysis.queries[0]: query 'ctx' uses {{context.team}}, which this step's context does not give (context: none)`,
    ]);
  });

  it('checks a builtin query against the builtin measures when a step names builtin', async () => {
    const problems = await dir.problems(
      'step-builtin.yaml',
      file(
        `  defaultMetricProviderName: prom-prod
  queries:
    - {name: errorRate, queryTemplate: 'potato_error_ratio', upperLimit: 0.05}`,
        `            metricProviderName: builtin
            interval: 30
            units: seconds
            queries: [errorRate]`,
      ),
      PROVIDERS,
    );
    expect(problems).toEqual([
      `${dir.root}/step-builtin.yaml:19:23: error: strategies.analyzed.canary.steps[1].analysis.queries[0]: query 'errorRate' runs on 'builtin' here: the builtin provider measures restarts, oomKills, crashLoops, readyRatio, warningEvents; found 'potato_error_ratio'`,
    ]);
  });
});
