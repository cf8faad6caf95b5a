// One application: for each account and cluster, its managers (Deployments), its versions (server
// groups) newest first with replicas, images, status and traffic, and their pods with phase,
// readiness, restarts, node, CPU and memory. Every row carries its object's key, so the page's script updates it
// in place from GET /watch; selecting a name shows its manifest, events and artifacts (a pod's, its
// logs too). Actions where the user has WRITE. A manager or version that drifted from what cloudctl
// deployed says so beside its name (drift-note.ts). Needs READ on an account the application runs in.
import { z } from 'zod';
import {
  type ApplicationFacts,
  applicationFacts,
  type ClusterFacts,
  healthMessage,
  healthOf,
  type ObjectFacts,
  type PodFacts,
  type VersionFacts,
  type WorkloadFacts,
} from '../application-facts.ts';
import { type HtmlValue, html, type SafeHtml } from '../safe-html.ts';
import { defineView, type Section } from '../status-view.ts';
import { driftNote } from './drift-note.ts';
import { badge, emptyState } from './table.ts';
import { actionCell } from './workload-actions.ts';

/** The name as a button that shows the object's manifest, events and artifacts in the details pane. */
export function selectButton(o: ObjectFacts, label: HtmlValue): SafeHtml {
  return html`<button type="button" class="link" data-select data-account="${o.account}" data-location="${o.namespace}" data-manifest="${o.kind} ${o.name}">${label}</button>`;
}

export function statusCell(o: ObjectFacts): SafeHtml {
  const message = healthMessage(o.status);
  return html`<span data-cell="status" data-health="${healthOf(o.status)}">${badge(healthOf(o.status))}${message === null ? '' : html` <span class="message">${message}</span>`}</span>`;
}

const replicasCell = (w: WorkloadFacts) =>
  html`<span data-cell="replicas" data-ready="${w.replicas.ready}" data-desired="${w.replicas.desired}">${w.replicas.ready}/${w.replicas.desired}</span>`;

const versionLabel = (v: VersionFacts) =>
  html`${v.sequence === null ? '' : html`<strong>v${String(v.sequence).padStart(3, '0')}</strong> `}${v.name}`;

function trafficCell(v: VersionFacts): SafeHtml {
  return html`<span data-cell="traffic" data-traffic="${v.traffic}">${v.traffic ? html`${badge('traffic')} <span class="muted">${v.loadBalancers.join(', ')}</span>` : html`<span class="muted">no traffic</span>`}</span>`;
}

function head(columns: readonly string[]): SafeHtml {
  return html`<thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>`;
}

function managersTable(cluster: ClusterFacts, writable: ReadonlySet<string>, now: Date): HtmlValue {
  if (cluster.managers.length === 0) return '';
  const rows = cluster.managers.map(
    (m) =>
      html`<tr data-key="${m.key}" data-role="manager"><td>${selectButton(m, `${m.kind} ${m.name}`)}${driftNote(m, writable, now)}</td><td>${replicasCell(m)}</td><td>${statusCell(m)}</td><td>${actionCell(m, writable, { managed: false })}</td></tr>`,
  );
  return html`<div class="scroll"><table class="managers">${head(['Manager', 'Ready', 'Status', 'Actions'])}<tbody>${rows}</tbody></table></div>`;
}

export function versionRow(
  v: VersionFacts,
  managed: boolean,
  writable: ReadonlySet<string>,
  now: Date,
): SafeHtml {
  return html`<tr data-key="${v.key}" data-role="version"><td>${selectButton(v, versionLabel(v))}${driftNote(v, writable, now)}</td><td>${replicasCell(v)}</td><td class="images">${v.images.map((i) => html`<code>${i}</code> `)}</td><td>${statusCell(v)}</td><td>${trafficCell(v)}</td><td>${actionCell(v, writable, { managed, traffic: v.traffic })}</td></tr>`;
}

export function podRow(p: PodFacts, version: VersionFacts): SafeHtml {
  return html`<tr data-key="${p.key}" data-role="pod" data-owner="${version.key}"><td>${selectButton(p, p.name)}</td><td>${version.sequence === null ? version.name : `v${String(version.sequence).padStart(3, '0')}`}</td><td><span data-cell="phase">${p.phase}</span></td><td><span data-cell="ready">${p.ready ? 'ready' : 'not ready'}</span></td><td><span data-cell="restarts">${p.restarts ?? '—'}</span></td><td><span data-cell="node">${p.node ?? '—'}</span></td><td><span data-cell="cpu">${p.cpu ?? '—'}</span></td><td><span data-cell="memory">${p.memory ?? '—'}</span></td></tr>`;
}

function clusterBody(cluster: ClusterFacts, writable: ReadonlySet<string>, now: Date): SafeHtml {
  const managed = cluster.managers.length > 0;
  const versions = cluster.versions.map((v) => versionRow(v, managed, writable, now));
  const pods = cluster.versions.flatMap((v) => v.pods.map((p) => podRow(p, v)));
  return html`<div class="cluster" data-cluster="${cluster.account}/${cluster.name}" data-managed="${managed}">
${managersTable(cluster, writable, now)}
<h3>Versions</h3>
<div class="scroll"><table class="versions">${head(['Version', 'Ready', 'Images', 'Status', 'Traffic', 'Actions'])}<tbody data-rows="versions">${versions}</tbody></table></div>
<h3>Pods</h3>
<div class="scroll"><table class="pods">${head(['Pod', 'Version', 'Phase', 'Ready', 'Restarts', 'Node', 'CPU', 'Memory'])}<tbody data-rows="pods">${pods}</tbody></table></div>
</div>`;
}

export function applicationSections(facts: ApplicationFacts, now: Date): Section[] {
  if (facts.clusters.length === 0)
    return [
      {
        id: 'clusters',
        title: 'Clusters',
        body: emptyState(
          'No server groups.',
          'Versions appear here when a deploy brings a ReplicaSet, StatefulSet or DaemonSet.',
        ),
      },
    ];
  return facts.clusters.map((c) => ({
    id: `cluster:${c.account}/${c.name}`,
    title: `${c.name} · ${c.account}`,
    body: clusterBody(c, facts.writable, now),
  }));
}

export const applicationView = defineView({
  url: '/status/applications/:application',
  params: z.object({ application: z.string().min(1) }),
  watch: (params) => ({ application: params.application }),
  async render(context, params) {
    const facts = await applicationFacts(context, params.application);
    return { title: `Application ${facts.name}`, sections: applicationSections(facts, context.now) };
  },
});
