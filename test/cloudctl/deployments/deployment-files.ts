// Deployment files written to a temporary directory, as users keep them: the deployment file beside
// a manifests/ folder.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type LoadedDeployment, loadDeploymentFile } from '../../../src/cloudctl/deployments/index.ts';
import { formatIssue } from '../../../src/lib/config-issue.ts';

export const DEPLOYMENT_YAML = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: potato-facts
spec:
  replicas: 4
  selector:
    matchLabels: {app: potato-facts}
  template:
    metadata:
      labels: {app: potato-facts}
    spec:
      containers:
        - name: app
          image: registry.example/potato-facts:2
`;

export const SERVICE_YAML = `apiVersion: v1
kind: Service
metadata:
  name: potato-facts
spec:
  selector: {app: potato-facts}
  ports: [{port: 80}]
`;

export class DeploymentDir {
  readonly root = mkdtempSync(join(tmpdir(), 'deployment-file-'));

  /** Writes `text` at `relative` (directories made as needed) and returns the full path. */
  write(relative: string, text: string): string {
    const file = join(this.root, relative);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return file;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  async load(relative: string, text: string): Promise<LoadedDeployment> {
    const file = this.write(relative, text);
    const result = await loadDeploymentFile(file);
    if (!result.ok)
      throw new Error(`expected ${file} to load:\n${result.issues.map(formatIssue).join('\n')}`);
    return result;
  }

  /**
   * The issues of a file that must not load, as `file:line:col: error: path: message` lines; with
   * `analysisProviders`, checked as cloudctl configured with those metric providers checks it.
   */
  async problems(
    relative: string,
    text: string,
    analysisProviders?: Parameters<typeof loadDeploymentFile>[1],
  ): Promise<string[]> {
    const file = this.write(relative, text);
    const result = await loadDeploymentFile(file, analysisProviders);
    if (result.ok) throw new Error(`expected ${file} to fail`);
    return result.issues.map(formatIssue);
  }
}
