// `trafficManagement` in deployment files, as the original product writes it: smi and istio entries
// load for canary targets with their defaults, a kubernetes entry gives a blue/green target its
// Services (the strategy may then leave them out), and every mismatch is located with the names
// that exist: unknown targets, a mesh on a blue/green target, istio without a destinationRule, a
// strategy and an entry naming different Services, one Service steered twice. The docs' example loads.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  blueGreenServices,
  trafficOf,
} from '../../../src/cloudctl/deployments/deployment-file/traffic-management.ts';
import { layOutSteps } from '../../../src/cloudctl/deployments/run/step-layout.ts';
import { DEPLOYMENT_YAML, DeploymentDir, SERVICE_YAML } from './deployment-files.ts';

const dir = new DeploymentDir();
beforeAll(() => dir.write('manifests/potato-facts.yaml', `${DEPLOYMENT_YAML}---\n${SERVICE_YAML}`));
afterAll(() => dir.remove());

const TARGETS = `application: potato-facts
targets:
  staging: {account: staging-cluster, strategy: canary}
  prod: {account: prod-cluster, strategy: canary}
  blue: {account: prod-cluster, strategy: bg}
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  canary:
    canary:
      steps:
        - setWeight: {weight: 25}
  bg:
    blueGreen:
      redirectTrafficAfter:
        - pause: {duration: 1, unit: seconds}
`;

describe('a deployment file with trafficManagement', () => {
  it('gives each target the entries that name it, or name no target, with their defaults', async () => {
    const loaded = await dir.load(
      'traffic.yaml',
      `${TARGETS}trafficManagement:
  - targets: [prod]
    smi:
      - rootServiceName: potato-facts
  - targets: [staging, prod]
    istio:
      - virtualService: {name: potato-vs, httpRouteName: primary}
        destinationRule: {name: potato-dr, activeSubsetName: stable}
  - targets: [blue]
    kubernetes:
      - activeService: potato-facts
        previewService: potato-preview
`,
    );
    const file = loaded.deployment;
    expect(trafficOf(file, 'prod')).toEqual({
      smi: [{ rootServiceName: 'potato-facts' }],
      istio: [
        {
          virtualService: { name: 'potato-vs', httpRouteName: 'primary' },
          destinationRule: { name: 'potato-dr', activeSubsetName: 'stable', canarySubsetName: 'canary' },
        },
      ],
      kubernetes: undefined,
    });
    expect(trafficOf(file, 'staging').smi).toEqual([]);
    expect(trafficOf(file, 'staging').istio).toHaveLength(1);
    // The strategy names no Service: the entry's are the blue/green target's, down to the step's label.
    expect(blueGreenServices(file, 'blue')).toEqual({
      activeService: 'potato-facts',
      previewService: 'potato-preview',
    });
    expect(layOutSteps(file, 'blue').find((s) => s.kind === 'switchTraffic')?.label).toBe(
      'potato-facts selects the new version',
    );
  });

  it("accepts a kubernetes entry that names the strategy's own Services again", async () => {
    const loaded = await dir.load(
      'same.yaml',
      `${TARGETS.replace('    blueGreen:\n', '    blueGreen:\n      activeService: potato-facts\n')}trafficManagement:
  - kubernetes:
      - activeService: potato-facts
    targets: [blue]
`,
    );
    expect(blueGreenServices(loaded.deployment, 'blue')).toEqual({ activeService: 'potato-facts' });
  });

  it('locates every mismatch with the names that exist', async () => {
    const problems = await dir.problems(
      'bad-traffic.yaml',
      `${TARGETS.replace('    blueGreen:\n', '    blueGreen:\n      activeService: potato-facts\n')}trafficManagement:
  - targets: [prd, blue]
    smi:
      - rootServiceName: potato-facts
        canaryServiceName: Potato
  - istio:
      - virtualService: {name: vs}
  - targets: [blue]
    kubernetes:
      - activeService: potato-active
  - targets: [staging]
    istio:
      - virtualService: {name: vs}
        destinationRule: {name: dr, activeSubsetName: stable}
  - targets: [staging]
    kubernetes:
      - activeService: potato-facts
  - targets: [prod]
`,
    );
    const file = `${dir.root}/bad-traffic.yaml`;
    expect(problems).toEqual([
      `${file}:19:15: error: trafficManagement[0].targets[0]: no target 'prd' (defined: staging, prod, blue); did you mean 'prod'?`,
      `${file}:20:5: error: trafficManagement[0].smi: smi steers canary targets only; target 'blue' uses the blue/green strategy 'bg': a blue/green target's Services go in a 'kubernetes' entry`,
      `${file}:22:28: error: trafficManagement[0].smi[0].canaryServiceName: expected a Service name (lower case letters, digits and -), found the string 'Potato'`,
      `${file}:23:5: error: trafficManagement[1].istio: istio steers canary targets only; target 'blue' uses the blue/green strategy 'bg': a blue/green target's Services go in a 'kubernetes' entry`,
      `${file}:24:9: error: trafficManagement[1].istio[0].destinationRule: required, expected object`,
      `${file}:27:24: error: trafficManagement[2].kubernetes[0].activeService: target 'blue': activeService 'potato-active' here, but its strategy names 'potato-facts' (strategies.bg.blueGreen.activeService): name it in one place`,
      `${file}:30:32: error: trafficManagement[3].istio[0].virtualService.name: vs of target 'staging' is already steered by trafficManagement[1].istio[0]: one weight per step needs one writer`,
      `${file}:33:5: error: trafficManagement[4].kubernetes: kubernetes steers blue/green targets only; target 'staging' uses the canary strategy 'canary': a canary's weights go to a mesh through 'smi' or 'istio'`,
      `${file}:35:5: error: trafficManagement[5]: a trafficManagement entry needs one of 'smi', 'istio', 'kubernetes', found none`,
    ]);
  });

  it('refuses a root Service whose name leaves no room for the Services named after it', async () => {
    const root = 'r'.repeat(57);
    const problems = await dir.problems(
      'long-root.yaml',
      `${TARGETS}trafficManagement:\n  - targets: [prod]\n    smi:\n      - rootServiceName: ${root}\n`,
    );
    // (TARGETS' blue/green strategy, named no Service here, is reported beside it.)
    expect(problems).toContain(
      `${dir.root}/long-root.yaml:20:26: error: trafficManagement[0].smi[0].rootServiceName: at most 56 characters: cloudctl names Services <root>-stable and <root>-canary after it, and a Service name has 63 at most, found the string '${root}'`,
    );
  });

  it('asks a blue/green strategy without Services for them, here or in a kubernetes entry', async () => {
    const problems = await dir.problems('no-active.yaml', TARGETS);
    expect(problems).toEqual([
      `${dir.root}/no-active.yaml:15:7: error: strategies.bg.blueGreen.activeService: required, expected string (or a trafficManagement kubernetes entry naming the activeService of target 'blue')`,
    ]);
  });
});

describe('the trafficManagement example of docs/deployment-files.md', () => {
  it('loads for a canary target and a blue/green one', async () => {
    const doc = readFileSync(new URL('../../../docs/deployment-files.md', import.meta.url), 'utf8');
    const example = /```yaml\n(trafficManagement:\n[\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const loaded = await dir.load(
      'docs-traffic.yaml',
      `application: web
targets:
  prod: {account: prod-cluster, strategy: canary}
  prod-blue-green: {account: prod-cluster, strategy: bg}
manifests:
  - path: manifests/potato-facts.yaml
strategies:
  canary: {canary: {steps: [{setWeight: {weight: 10}}]}}
  bg: {blueGreen: {}}
${example}`,
    );
    const file = loaded.deployment;
    expect(trafficOf(file, 'prod').smi).toEqual([
      { rootServiceName: 'web', canaryServiceName: 'web-canary', trafficSplitName: 'web' },
    ]);
    expect(trafficOf(file, 'prod').istio[0]?.virtualService).toEqual({
      name: 'web-vs',
      httpRouteName: 'primary',
    });
    expect(blueGreenServices(file, 'prod-blue-green')).toEqual({
      activeService: 'web',
      previewService: 'web-preview',
    });
  });
});
