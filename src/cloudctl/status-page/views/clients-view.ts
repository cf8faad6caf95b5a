// Client credentials, the spec's Access Management screen (Authentication 4), for administrators:
// every credential with its type in words, roles, bound agent and state; a form to create one (name,
// type, roles, the agent a remote network agent credential connects as); revoke and rotate. A new
// secret is shown once, on the answer to the form that made it, never on the list: cloudctl keeps
// its hash only. Everything goes through the same service as /clients, so its rules (administrators
// only, roles without whitespace, an agent id for an agent's credential) hold here as there. The
// list and the forms carry no relative time, so the live refresh leaves a half-filled form alone.
import { z } from 'zod';
import { HttpError } from '../../http/index.ts';
import { type CredentialSecret, newCredentialSchema, type StoredClient } from '../../oauth/index.ts';
import { formatTime } from '../format.ts';
import { html, type SafeHtml } from '../safe-html.ts';
import { defineAction, defineView, type RenderedView, type ViewContext } from '../status-view.ts';
import { badge, code, emptyState, table } from './table.ts';

const URL = '/status/clients';
const noParams = z.object({});

/** A type as the console names it. */
function typeInWords(client: Pick<StoredClient, 'type' | 'agentId'>): SafeHtml {
  return client.type === 'remoteNetworkAgent'
    ? html`Remote network agent <span class="muted">as</span> ${code(client.agentId ?? '')}`
    : html`Deployments Full Access`;
}

function state(client: StoredClient): SafeHtml {
  if (client.revokedAt !== null) return html`${badge('revoked')} ${formatTime(client.revokedAt)}`;
  return badge('usable');
}

function actions(client: StoredClient): SafeHtml | string {
  if (client.revokedAt !== null) return '';
  const id = client.clientId;
  return html`<form method="post" class="actions" data-client="${id}">
<input type="hidden" name="clientId" value="${id}">
<button type="submit" formaction="${URL}/rotate" data-action="rotate" title="A new secret, shown once; the old one stops working at once">Rotate secret</button>
<button type="submit" formaction="${URL}/revoke" data-action="reject" title="The credential stops working at once, and its agent is disconnected">Revoke</button>
</form>`;
}

function list(clients: readonly StoredClient[]): SafeHtml {
  if (clients.length === 0)
    return emptyState(
      'No client credential yet.',
      'Create one below: a remote network agent credential lets a new agent connect; a Deployments Full Access one lets a webhook job or a workflow tool call the API.',
    );
  const usable = clients.filter((c) => c.revokedAt === null).length;
  return html`<p class="summary"><strong>${usable}</strong> of ${clients.length} credentials usable</p>
${table(
  ['Name', 'Type', 'Roles', 'Client id', 'Created', 'Secret rotated', 'State', ''],
  clients.map((client) => [
    html`<span data-client-name="${client.clientId}">${client.name}</span>`,
    typeInWords(client),
    html`<ul class="inline">${client.roles.map((role) => html`<li>${code(role)}</li>`)}</ul>`,
    code(client.clientId),
    html`${formatTime(client.createdAt)} <span class="muted">by</span> ${client.createdBy}`,
    client.rotatedAt === null ? html`<span class="muted">never</span>` : formatTime(client.rotatedAt),
    state(client),
    actions(client),
  ]),
)}`;
}

const createForm = html`<form method="post" action="${URL}/create" class="login" data-form="create-client">
<label for="client-name">Name <span class="muted">(what it is for)</span></label>
<input id="client-name" name="name" type="text" required maxlength="200">
<label for="client-type">Type</label>
<select id="client-type" name="type">
<option value="remoteNetworkAgent">Remote network agent: an agent connects with the secret</option>
<option value="deployments">Deployments Full Access: a webhook job or workflow tool calls the API</option>
</select>
<label for="client-roles">Roles <span class="muted">(one or more, separated by commas; no spaces inside a role)</span></label>
<input id="client-roles" name="roles" type="text" required>
<label for="client-agent">Agent id <span class="muted">(remote network agent only: the agent's ORCH_AGENT_ID or pod name)</span></label>
<input id="client-agent" name="agentId" type="text">
<button type="submit" data-action="create">Create credential</button>
</form>`;

/** The page answering a creation or a rotation: the secret, once, and how to use it. */
function secretShown(made: CredentialSecret, what: 'created' | 'rotated'): RenderedView {
  const use =
    made.type === 'remoteNetworkAgent'
      ? html`<p>Give it to the agent as its token, and run the agent as ${code(made.agentId ?? '')} (<code>ORCH_AGENT_ID</code>, else its pod's name): it connects with no change to cloudctl's configuration and no restart.</p>
<pre class="json">cloudctl:
  auth:
    token: &lt;this secret, or a secret reference to where you keep it&gt;</pre>`
      : html`<p>The job trades it for an access token at <code>POST /oauth/token</code> with
<code>grant_type=client_credentials</code>, <code>client_id=${made.clientId}</code> and this secret as <code>client_secret</code>.</p>`;
  const body = html`<p class="notice" role="alert">Copy the secret now: it is shown this once only. cloudctl keeps its hash, never the secret.</p>
<dl class="facts">
<dt>Name</dt><dd>${made.name}</dd>
<dt>Type</dt><dd>${typeInWords({ type: made.type, agentId: made.agentId })}</dd>
<dt>Client id</dt><dd>${code(made.clientId)}</dd>
<dt>Secret</dt><dd><code data-secret>${made.clientSecret}</code></dd>
</dl>
${what === 'rotated' ? html`<p>The old secret stopped working at once; an agent still using it was disconnected.</p>` : ''}
${use}
<p><a href="${URL}">Back to the client credentials</a></p>`;
  return {
    title: what === 'created' ? 'Client credential created' : 'Secret rotated',
    sections: [{ id: 'secret', title: 'The secret, shown once', body }],
  };
}

/** Roles as typed in the form: separated by commas (or spaces, which no role may contain). */
const rolesField = z.string().transform((text) => text.split(/[\s,]+/).filter((role) => role !== ''));

const createFields = z.object({
  name: z.string(),
  type: z.string(),
  roles: rolesField,
  agentId: z
    .string()
    .optional()
    .transform((id) => (id === undefined || id.trim() === '' ? undefined : id.trim())),
});

const clientField = z.object({ clientId: z.string().min(1) });

/** The form's fields checked by the API's own schema: a refusal names the field, as POST /clients does. */
function newCredential(form: z.output<typeof createFields>) {
  const parsed = newCredentialSchema.safeParse({
    ...form,
    agentId: form.type === 'remoteNetworkAgent' ? form.agentId : undefined,
  });
  if (!parsed.success) throw new HttpError('REQUEST_INVALID', z.prettifyError(parsed.error));
  return parsed.data;
}

async function render(context: ViewContext): Promise<RenderedView> {
  const clients = await context.sources.oauth.credentials.list(context.user);
  return {
    title: 'Client credentials',
    sections: [
      { id: 'clients', title: 'Credentials', body: list(clients) },
      { id: 'create', title: 'New credential', body: createForm },
    ],
  };
}

export const clientsView = defineView({
  url: URL,
  nav: 'Credentials',
  render,
  actions: {
    create: defineAction(noParams, {
      form: createFields,
      async run({ sources, user }, _params, form) {
        return secretShown(await sources.oauth.credentials.create(user, newCredential(form)), 'created');
      },
    }),
    rotate: defineAction(noParams, {
      form: clientField,
      async run({ sources, user }, _params, form) {
        return secretShown(await sources.oauth.credentials.rotate(user, form.clientId), 'rotated');
      },
    }),
    revoke: defineAction(noParams, {
      form: clientField,
      async run({ sources, user }, _params, form) {
        await sources.oauth.credentials.revoke(user, form.clientId);
      },
    }),
  },
});
