// The records the read endpoints answer, in the shapes of the API we mirror (clouddriver's Swagger
// definitions of the same names), with the Kubernetes provider's extra fields (account, namespace,
// kind, displayName) where its clients read them.
import { z } from 'zod';

export const CLOUD_PROVIDER = 'orchestrator';

export const monikerSchema = z
  .object({
    app: z.string(),
    cluster: z.string(),
    stack: z.string().optional(),
    detail: z.string().optional(),
    sequence: z.int().optional(),
  })
  .describe('Moniker');

const labels = z.record(z.string(), z.string()).describe('the object’s labels');

export const applicationSchema = z
  .object({
    name: z.string(),
    attributes: z.record(z.string(), z.string()),
    clusterNames: z
      .record(z.string(), z.array(z.string()))
      .describe('cluster names by account; empty unless expanded'),
  })
  .describe('Application');

export const applicationViewSchema = z
  .object({
    name: z.string(),
    attributes: z.record(z.string(), z.string()),
    clusters: z.record(
      z.string(),
      z.array(
        z
          .object({
            name: z.string(),
            provider: z.string(),
            serverGroups: z.array(z.string()),
            loadBalancers: z.array(z.string()),
          })
          .describe('ApplicationClusterViewModel'),
      ),
    ),
  })
  .describe('ApplicationViewModel');

export const clusterViewSchema = z
  .object({
    account: z.string(),
    name: z.string(),
    moniker: monikerSchema,
    serverGroups: z.array(z.string()),
    loadBalancers: z.array(z.string()),
  })
  .describe('ClusterViewModel');

export const instanceSchema = z
  .object({
    name: z.string().describe('"pod <name>"'),
    humanReadableName: z.string(),
    displayName: z.string(),
    account: z.string(),
    namespace: z.string(),
    zone: z.string().describe('the namespace'),
    kind: z.string(),
    cloudProvider: z.string(),
    providerType: z.string(),
    launchTime: z.number().nullable(),
    healthState: z.enum([
      'Failed',
      'Down',
      'OutOfService',
      'Unknown',
      'Starting',
      'Succeeded',
      'Up',
      'Draining',
    ]),
    health: z.array(z.object({ type: z.string(), state: z.string() })),
    phase: z.string(),
    ready: z.boolean(),
    labels,
  })
  .describe('Instance');

const instanceCountsSchema = z
  .object({
    total: z.int(),
    up: z.int(),
    down: z.int(),
    starting: z.int(),
    outOfService: z.int(),
    unknown: z.int(),
  })
  .describe('InstanceCounts');

export const serverGroupSchema = z
  .object({
    name: z.string().describe('"<kind> <name>", e.g. "replicaSet web-7f7f"'),
    displayName: z.string(),
    account: z.string(),
    region: z.string().describe('the namespace'),
    namespace: z.string(),
    zones: z.array(z.string()),
    kind: z.string(),
    cloudProvider: z.string(),
    type: z.string(),
    cluster: z.string(),
    moniker: monikerSchema,
    createdTime: z.number().nullable(),
    disabled: z.boolean().describe('true when no Service selects its pods'),
    capacity: z
      .object({ min: z.int(), max: z.int(), desired: z.int(), pinned: z.boolean() })
      .describe('Capacity'),
    instanceCounts: instanceCountsSchema,
    instances: z.array(instanceSchema).describe('empty unless expanded'),
    loadBalancers: z.array(z.string()),
    securityGroups: z.array(z.string()),
    serverGroupManagers: z.array(
      z
        .object({ account: z.string(), location: z.string(), name: z.string() })
        .describe('ServerGroupManagerSummary'),
    ),
    labels,
  })
  .describe('ServerGroup');

export const loadBalancerSchema = z
  .object({
    name: z.string().describe('"<kind> <name>", e.g. "service web"'),
    displayName: z.string(),
    account: z.string(),
    region: z.string(),
    namespace: z.string(),
    kind: z.string(),
    cloudProvider: z.string(),
    type: z.string(),
    moniker: monikerSchema.nullable(),
    createdTime: z.number().nullable(),
    labels,
    serverGroups: z.array(
      z
        .object({
          name: z.string(),
          account: z.string(),
          region: z.string(),
          cloudProvider: z.string(),
          isDisabled: z.boolean(),
          instances: z.array(
            z
              .object({
                id: z.string(),
                name: z.string(),
                zone: z.string(),
                health: z.object({ state: z.string() }),
              })
              .describe('LoadBalancerInstance'),
          ),
          detachedInstances: z.array(z.string()),
        })
        .describe('LoadBalancerServerGroup'),
    ),
  })
  .describe('LoadBalancer');

export const clusterSchema = z
  .object({
    name: z.string(),
    accountName: z.string(),
    application: z.string(),
    type: z.string(),
    moniker: monikerSchema,
    serverGroups: z.array(serverGroupSchema),
    loadBalancers: z.array(loadBalancerSchema),
  })
  .describe('Cluster');

export const serverGroupManagerSchema = z
  .object({
    name: z.string(),
    displayName: z.string(),
    account: z.string(),
    region: z.string(),
    namespace: z.string(),
    kind: z.string(),
    cloudProvider: z.string(),
    moniker: monikerSchema,
    createdTime: z.number().nullable(),
    labels,
    serverGroups: z.array(
      z
        .object({ name: z.string(), account: z.string(), region: z.string(), moniker: monikerSchema })
        .describe('ServerGroupSummary'),
    ),
  })
  .describe('ServerGroupManager');

export const rawResourceSchema = z
  .object({
    name: z.string().describe('"<kind> <name>"'),
    displayName: z.string(),
    account: z.string(),
    apiVersion: z.string(),
    kind: z.string(),
    namespace: z.string(),
    region: z.string(),
    createdTime: z.number().nullable(),
    labels,
    moniker: monikerSchema.nullable(),
  })
  .describe('OrchestratorRawResource');

export const securityGroupSummarySchema = z
  .object({ id: z.string(), name: z.string(), moniker: monikerSchema.nullable() })
  .describe('SecurityGroupSummary');

export const securityGroupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    displayName: z.string(),
    accountName: z.string(),
    application: z.string().nullable(),
    region: z.string(),
    namespace: z.string(),
    cloudProvider: z.string(),
    type: z.string(),
    moniker: monikerSchema.nullable(),
    labels,
    summary: securityGroupSummarySchema,
  })
  .describe('SecurityGroup');

export const searchResultSetSchema = z
  .object({
    platform: z.string(),
    query: z.string(),
    pageNumber: z.int(),
    pageSize: z.int(),
    totalMatches: z.int(),
    results: z.array(z.record(z.string(), z.string())),
  })
  .describe('SearchResultSet');

export type Moniker = z.infer<typeof monikerSchema>;
export type Instance = z.infer<typeof instanceSchema>;
export type ServerGroup = z.infer<typeof serverGroupSchema>;
export type LoadBalancer = z.infer<typeof loadBalancerSchema>;
export type Cluster = z.infer<typeof clusterSchema>;
export type ClusterView = z.infer<typeof clusterViewSchema>;
export type ServerGroupManager = z.infer<typeof serverGroupManagerSchema>;
export type RawResource = z.infer<typeof rawResourceSchema>;
export type SecurityGroupSummary = z.infer<typeof securityGroupSummarySchema>;
export type SecurityGroup = z.infer<typeof securityGroupSchema>;
