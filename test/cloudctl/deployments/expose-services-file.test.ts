// Deployment files with the original product's `exposeServices` steps, in a canary and in a blue/green
// `redirectTrafficAfter`: they load with the TTL's default (30 minutes) and lay out as exposeServices
// steps; a step without services, a Service name Kubernetes would refuse, a Service listed twice and a
// TTL over 24 hours are each refused at their line and key path.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layOutSteps } from '../../../src/cloudctl/deployments/run/step-layout.ts';
import { DEPLOYMENT_YAML, DeploymentDir, SERVICE_YAML } from './deployment-files.ts';

const dir = new DeploymentDir();
beforeAll(() => dir.write('manifests/potato-facts.yaml', `${DEPLOYMENT_YAML}---\n${SERVICE_YAML}`));
afterAll(() => dir.remove());

function file(steps: string): string {
  return `version: v1
kind: kubernetes
application: potato-facts
targets:
  staging:
    account: staging-cluster
    strategy: canary
  prod:
    account: prod-cluster
    strategy: blue-green
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  canary:
    canary:
      steps:
        - setWeight: {weight: 25}
${steps}
  blue-green:
    blueGreen:
      activeService: potato-facts
      redirectTrafficAfter:
        - exposeServices:
            services: [potato-facts]
            ttl: {duration: 2, unit: hours}
`;
}

describe('exposeServices steps in a deployment file', () => {
  it('loads them with the default TTL and lays them out as exposeServices steps', async () => {
    const loaded = await dir.load(
      'expose.yaml',
      file('        - exposeServices:\n            services: [potato-facts, potato-api]'),
    );
    expect(loaded.deployment.strategies.canary).toMatchObject({
      canary: {
        steps: [
          { setWeight: { weight: 25 } },
          {
            exposeServices: {
              services: ['potato-facts', 'potato-api'],
              ttl: { duration: 30, unit: 'minutes' },
            },
          },
        ],
      },
    });
    expect(layOutSteps(loaded.deployment, 'staging').map((s) => [s.key, s.kind, s.label])).toEqual([
      ['staging/deploy', 'deploy', 'deploy the new version'],
      ['staging/canary[0]', 'setWeight', 'setWeight 25%'],
      ['staging/canary[1]', 'exposeServices', 'preview URLs of potato-facts, potato-api for 30 minutes'],
      ['staging/promote', 'promote', 'new version at 100%'],
    ]);
    const prod = layOutSteps(loaded.deployment, 'prod').find((s) => s.kind === 'exposeServices');
    expect(prod).toMatchObject({
      key: 'prod/redirectTrafficAfter[0]',
      group: 'redirectTrafficAfter',
      label: 'preview URLs of potato-facts for 2 hours',
    });
  });

  it('refuses a step without services, naming its line and key path', async () => {
    const problems = await dir.problems('no-services.yaml', file('        - exposeServices: {services: []}'));
    expect(problems).toEqual([
      expect.stringMatching(
        /no-services\.yaml:18:\d+: error: strategies\.canary\.canary\.steps\[1\]\.exposeServices\.services: must not be empty, found a list/,
      ),
    ]);
  });

  it('refuses a name Kubernetes would not take and a Service listed twice, each at its place', async () => {
    const problems = await dir.problems(
      'names.yaml',
      file('        - exposeServices:\n            services: [Potato_Facts, web, web]'),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /names\.yaml:19:\d+: error: strategies\.canary\.canary\.steps\[1\]\.exposeServices\.services\[0\]: expected a Service name/,
      ),
      expect.stringMatching(
        /names\.yaml:19:\d+: error: strategies\.canary\.canary\.steps\[1\]\.exposeServices\.services\[2\]: Service 'web' is listed twice \(also services\[1\]\)/,
      ),
    ]);
  });

  it('refuses a TTL over 24 hours and a unit it does not know', async () => {
    const long = await dir.problems(
      'long.yaml',
      file(
        '        - exposeServices:\n            services: [web]\n            ttl: {duration: 2, unit: days}',
      ),
    );
    expect(long).toEqual([
      expect.stringMatching(
        /long\.yaml:20:\d+: error: strategies\.canary\.canary\.steps\[1\]\.exposeServices\.ttl\.unit: .*seconds.*minutes.*hours/,
      ),
    ]);
    const tooLong = await dir.problems(
      'too-long.yaml',
      file(
        '        - exposeServices:\n            services: [web]\n            ttl: {duration: 25, unit: hours}',
      ),
    );
    expect(tooLong).toEqual([
      expect.stringMatching(
        /too-long\.yaml:20:\d+: error: strategies\.canary\.canary\.steps\[1\]\.exposeServices\.ttl: a preview lives 24 hours at most/,
      ),
    ]);
  });
});
