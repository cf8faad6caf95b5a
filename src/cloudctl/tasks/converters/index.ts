// Every operation name the HTTP API takes, registered in one place: adding one is one file in this
// folder and one line here.
import { cleanupArtifacts } from './cleanup-artifacts.ts';
import type { OperationConverter } from './converter.ts';
import { deleteManifest } from './delete-manifest.ts';
import { deployManifest } from './deploy/deploy-manifest.ts';
import { disableManifest, enableManifest } from './enable-disable-manifest.ts';
import { patchManifest } from './patch-manifest.ts';
import { resizeServerGroup } from './resize-server-group.ts';
import {
  pauseRolloutManifest,
  resumeRolloutManifest,
  rollingRestartManifest,
  undoRolloutManifest,
} from './rollout-manifests.ts';
import { runJob } from './run-job.ts';
import { scaleManifest } from './scale-manifest.ts';

export const CONVERTERS: ReadonlyArray<OperationConverter> = [
  deployManifest,
  deleteManifest,
  scaleManifest,
  resizeServerGroup,
  patchManifest,
  undoRolloutManifest,
  pauseRolloutManifest,
  resumeRolloutManifest,
  rollingRestartManifest,
  runJob,
  cleanupArtifacts,
  enableManifest,
  disableManifest,
];

export {
  type AgentStep,
  type ClusterLookups,
  type ClusterReads,
  type ConverterContext,
  type KindResolver,
  type KubeObject,
  type OperationConverter,
  PayloadError,
  type PodLabels,
} from './converter.ts';
export { type TaskResultObject, taskResultObjectSchema } from './result-object.ts';
