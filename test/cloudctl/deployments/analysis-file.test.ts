// Deployment files with the original product's canary analysis: the top-level `analysis` section
// (its provider and named queries with limits) and `analysis` steps in a canary and in a blue/green
// `redirectTrafficAfter` load into typed steps laid out for the run; mistakes are located with the
// names that exist.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutSteps } from '../../../src/cloudctl/deployments/run/step-layout.ts';
import { DEPLOYMENT_YAML, DeploymentDir, SERVICE_YAML } from './deployment-files.ts';

const dir = new DeploymentDir();
beforeAll(() => dir.write('manifests/potato-facts.yaml', `${DEPLOYMENT_YAML}---\n${SERVICE_YAML}`));
afterAll(() => dir.remove());

const ORIGINAL = `version: v1
kind: kubernetes
application: potato-facts
targets:
  staging:
    account: staging-cluster
    strategy: canary-analyzed
  prod:
    account: prod-cluster
    strategy: blue-green
manifests:
  - path: manifests/potato-facts.yaml
analysis:
  defaultMetricProviderName: builtin
  queries:
    - name: noCrashes
      queryTemplate: crashLoops
      upperLimit: 0
    - name: mostlyReady
      queryTemplate: readyRatio
      lowerLimit: 0.5
strategies:
  canary-analyzed:
    canary:
      steps:
        - setWeight: {weight: 25}
        - analysis:
            interval: 7
            units: seconds
            numberOfJudgmentRuns: 3
            rollBackMode: manual
            rollForwardMode: automatic
            queries: [noCrashes, mostlyReady, restarts]
  blue-green:
    blueGreen:
      activeService: potato-facts
      redirectTrafficAfter:
        - analysis:
            metricProviderName: builtin
            context: {app: potato}
            interval: 1
            units: minutes
            queries: [oomKills]
`;

describe("a deployment file with the original product's analysis", () => {
  it('loads the section and the steps, and lays them out as analysis steps', async () => {
    const loaded = await dir.load('original.yaml', ORIGINAL);
    const file = loaded.deployment;
    expect(file.analysis.queries.map((q) => q.name)).toEqual(['noCrashes', 'mostlyReady']);
    const canary = file.strategies['canary-analyzed'];
    expect(canary).toMatchObject({
      canary: {
        steps: [
          { setWeight: { weight: 25 } },
          {
            analysis: {
              interval: 7,
              units: 'seconds',
              numberOfJudgmentRuns: 3,
              rollBackMode: 'manual',
              queries: ['noCrashes', 'mostlyReady', 'restarts'],
            },
          },
        ],
      },
    });
    expect(layOutSteps(file, 'staging').map((s) => [s.key, s.kind, s.label])).toEqual([
      ['staging/deploy', 'deploy', 'deploy the new version'],
      ['staging/canary[0]', 'setWeight', 'setWeight 25%'],
      [
        'staging/canary[1]',
        'analysis',
        'analysis of noCrashes, mostlyReady, restarts, 3 times every 7 seconds',
      ],
      ['staging/promote', 'promote', 'new version at 100%'],
    ]);
    const prod = layOutSteps(file, 'prod').find((s) => s.kind === 'analysis');
    // Defaults: one judgment, rollback left to a person.
    expect(prod).toMatchObject({
      group: 'redirectTrafficAfter',
      label: 'analysis of oomKills, once every 1 minutes',
    });
    const blueGreen = file.strategies['blue-green'];
    expect(blueGreen).toMatchObject({
      blueGreen: {
        redirectTrafficAfter: [{ analysis: { numberOfJudgmentRuns: 1, rollBackMode: 'manual' } }],
      },
    });
  });

  it('locates unknown queries, providers, measures and unsupported modes', async () => {
    const problems = await dir.problems(
      'bad-analysis.yaml',
      `application: a
targets:
  t: {account: c, strategy: s}
manifests:
  - path: manifests/potato-facts.yaml
analysis:
  defaultMetricProviderName: prometheus
  queries:
    - {name: cpu, metricProviderName: builtin, queryTemplate: 'avg(cpu)', upperLimit: 1}
    - {name: ready, queryTemplate: readyRatio, lowerLimit: 2, upperLimit: 1}
strategies:
  s:
    canary:
      steps:
        - setWeight: {weight: 10}
        - analysis:
            interval: 30
            units: seconds
            rollForwardMode: manual
            queries: [restart, cpu]
`,
      [],
    );
    const file = `${dir.root}/bad-analysis.yaml`;
    expect(problems).toEqual([
      `${file}:7:30: error: analysis.defaultMetricProviderName: unknown metric provider 'prometheus' (cloudctl's config, analysis.providers, defines none; 'builtin' is always there)`,
      `${file}:9:64: error: analysis.queries[0].queryTemplate: the builtin provider measures restarts, oomKills, crashLoops, readyRatio, warningEvents; found 'avg(cpu)'`,
      `${file}:10:60: error: analysis.queries[1].lowerLimit: lowerLimit 2 is above upperLimit 1: no value passes`,
      `${file}:19:30: error: strategies.s.canary.steps[1].analysis.rollForwardMode: rollForwardMode: manual is not supported: put a '- pause: {untilApproved: true}' step after the analysis, found the string 'manual'`,
      `${file}:20:23: error: strategies.s.canary.steps[1].analysis.queries[0]: no analysis query named 'restart'; did you mean 'restarts'? (analysis.queries defines cpu, ready; built-in measures: restarts, oomKills, crashLoops, readyRatio, warningEvents)`,
    ]);
  });
});
