// Every application the user may read (an object of it in an account they have READ on), with its
// accounts, clusters and health in words: its versions stable, unstable, paused or failed, its pods
// ready of all. The first tab of the status page; kept live by GET /watch (every readable account).
import { type ApplicationFacts, applicationsFacts, healthOf } from '../application-facts.ts';
import { type HtmlValue, html } from '../safe-html.ts';
import { defineView } from '../status-view.ts';
import { badge, emptyState, table } from './table.ts';

interface Listed {
  name: string;
  accounts: string[];
  clusters: string[];
}

/** Counts of the versions by health and of the pods ready, in words. */
function health(facts: ApplicationFacts): { versions: HtmlValue; pods: HtmlValue } {
  const counts = { stable: 0, unstable: 0, paused: 0, failed: 0 };
  let ready = 0;
  let total = 0;
  for (const cluster of facts.clusters)
    for (const version of cluster.versions) {
      counts[healthOf(version.status)]++;
      total += version.pods.length;
      ready += version.pods.filter((p) => p.ready).length;
    }
  const parts = (Object.entries(counts) as Array<[keyof typeof counts, number]>)
    .filter(([, n]) => n > 0)
    .map(
      ([state, n]) => html`<span data-health-count="${state}" data-count="${n}">${badge(state)} ${n}</span> `,
    );
  return {
    versions: parts.length === 0 ? html`<span class="muted">none</span>` : parts,
    pods: html`<span data-pods-ready="${ready}" data-pods-total="${total}">${ready}/${total} ready</span>`,
  };
}

export const applicationsView = defineView({
  url: '/status/applications',
  nav: 'Applications',
  watch: () => ({}),
  async render(context) {
    const { sources, user } = context;
    const accounts = (await sources.guard.visible(user, 'READ')).map((a) => a.name);
    const byName = new Map<string, Listed>();
    for (const row of await sources.store.readModel.applicationClusters(accounts)) {
      const listed = byName.get(row.application) ?? { name: row.application, accounts: [], clusters: [] };
      if (!listed.accounts.includes(row.account)) listed.accounts.push(row.account);
      if (row.cluster !== null && !listed.clusters.includes(row.cluster)) listed.clusters.push(row.cluster);
      byName.set(row.application, listed);
    }
    const listed = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
    const facts = await applicationsFacts(
      context,
      listed.map((a) => a.name),
    );
    const body =
      listed.length === 0
        ? emptyState(
            'No applications yet.',
            html`An application appears here when an object in an account you may read carries its
<code>moniker.spinnaker.io/application</code> annotation (a deploy through <code>POST /ops</code> writes it).`,
          )
        : table(
            ['Application', 'Accounts', 'Clusters', 'Versions', 'Pods'],
            listed.map((a, i) => {
              const h = health(facts[i] ?? { name: a.name, clusters: [], writable: new Set() });
              return [
                html`<a href="/status/applications/${encodeURIComponent(a.name)}" data-application="${a.name}">${a.name}</a>`,
                a.accounts.sort().join(', '),
                a.clusters.sort().join(', '),
                h.versions,
                h.pods,
              ];
            }),
          );
    return { title: 'Applications', sections: [{ id: 'applications', title: 'Applications', body }] };
  },
});
