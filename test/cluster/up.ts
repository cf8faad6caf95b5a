// `npm run cluster:up`: a test cluster for a person. Starts it, prints how to use it, and stops it
// cleanly on Ctrl-C (SIGINT) or SIGTERM. The components run in their own sessions, so the terminal's
// Ctrl-C reaches only this process, which then stops them in order.
import { join } from 'node:path';
import { startCluster } from './cluster.ts';

const log = (line: string) => console.log(`[cluster:up] ${line}`);
const nodes = Number(process.env.CLUSTER_NODES ?? 2);

try {
  const cluster = await startCluster({ nodes, log, fakeKubelet: true });
  const kubectl = join(cluster.binaries.binDir, 'kubectl');
  log(`kubeconfig: ${cluster.kubeconfigPath}`);
  log(`API server: ${cluster.server} (admin token in the kubeconfig; CA in ${cluster.caFile})`);
  log(`try:  ${kubectl} --kubeconfig ${cluster.kubeconfigPath} get nodes`);
  log(`      export PATH=${cluster.binaries.binDir}:$PATH KUBECONFIG=${cluster.kubeconfigPath}`);
  log(
    `pod logs: pods on node ${cluster.fakeKubelet?.nodeName} (spec.nodeName) print their ` +
      'orch-agent-test/log.<container> annotation',
  );
  log(`logs: ${join(cluster.dir, 'logs')}; press Ctrl-C to stop`);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log(`${signal}: stopping`);
  // A second Ctrl-C while stopping forces the exit; the exit hook and the reaper still end every
  // component.
  process.once('SIGINT', () => process.exit(130));
  await cluster.stop();
  log('stopped');
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
