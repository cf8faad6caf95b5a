// Deployments: the newest the user may read (GET /deployments's rule: every account of the deployment
// readable), newest first, with application, status, each target with its status, who started it
// and when.
import { readableDeployments } from '../../deployments/index.ts';
import { timeAgo } from '../format.ts';
import { html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { badge, code, emptyState, table } from './table.ts';

/** How many of the newest deployments are read, as GET /deployments by default. */
export const RECENT_DEPLOYMENTS = 50;

export const deploymentsView = defineView({
  url: '/status/deployments',
  nav: 'Deployments',
  async render({ sources, user, now }) {
    const deployments = await readableDeployments(sources.deployments, user, RECENT_DEPLOYMENTS);
    const body =
      deployments.length === 0
        ? emptyState(
            'No deployments you may read.',
            html`Start one with <code>cloudctl deploy -f FILE</code> or <code>POST /deployments</code>; it appears here with each target's progress.`,
          )
        : table(
            ['Deployment', 'Application', 'Status', 'Targets', 'Created by', 'Created'],
            deployments.map((d) => [
              html`<a href="/status/deployments/${encodeURIComponent(d.id)}" data-deployment="${d.id}">${code(d.id.slice(0, 8))}</a>`,
              d.application,
              html`<span data-status="${d.status}">${badge(d.status)}</span>`,
              html`<ul class="inline">${d.progress.targets.map(
                (t) =>
                  html`<li data-target="${t.name}" data-status="${t.status}">${t.name} ${badge(t.status)} <span class="muted">${t.account}</span></li>`,
              )}</ul>`,
              d.createdBy,
              timeAgo(d.createdAt, now),
            ]),
          );
    return { title: 'Deployments', sections: [{ id: 'deployments', title: 'Deployments', body }] };
  },
});
