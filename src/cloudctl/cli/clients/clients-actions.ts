// The clients commands' requests and what they print: the /clients answers checked against the
// schemas the routes document, a kubectl-style table for the list, and the secret of a creation or a
// rotation printed once with what it is for.
import type { z } from 'zod';
import type { CliIo } from '../../../lib/cli-io.ts';
import { EXIT } from '../../../lib/command-line.ts';
import { type CredentialView, credentialSecretSchema, credentialViewSchema } from '../../oauth/index.ts';
import type { ApiClient } from '../client/index.ts';
import { ageOf, type Column, TablePrinter } from '../get/index.ts';

type Format = 'table' | 'json';
type Secret = z.infer<typeof credentialSecretSchema>;

const COLUMNS: readonly Column<CredentialView>[] = [
  { header: 'CLIENT ID', value: (c) => c.clientId },
  { header: 'NAME', value: (c) => c.name },
  { header: 'TYPE', value: (c) => c.type },
  { header: 'ROLES', value: (c) => c.roles.join(',') },
  { header: 'AGENT', value: (c) => c.agentId ?? '' },
  { header: 'STATUS', value: (c) => (c.revoked === null ? 'active' : 'revoked') },
  { header: 'CREATED BY', value: (c) => c.createdBy },
  { header: 'AGE', value: (c, now) => ageOf(Date.parse(c.created), now) },
];

async function sent<S extends z.ZodType>(
  client: ApiClient,
  method: string,
  path: string,
  expected: number,
  schema: S,
  body?: unknown,
): Promise<z.infer<S>> {
  const answer = await client.send(method, path, body);
  if (answer.status !== expected) throw client.failure(method, path, answer);
  return client.parsed(method, path, schema, answer.json);
}

/** The secret and how to use it; JSON prints the answer as the API gave it. */
function printSecret(io: CliIo, format: Format, secret: Secret, what: string): number {
  if (format === 'json') {
    io.out(JSON.stringify(secret, null, 2));
    return EXIT.ok;
  }
  io.out(
    `${what} client ${secret.clientId} (${secret.name}, ${secret.type}, roles ${secret.roles.join(',')})`,
  );
  io.out(`client id:     ${secret.clientId}`);
  io.out(`client secret: ${secret.clientSecret}`);
  io.out(
    secret.type === 'remoteNetworkAgent'
      ? `Give the secret to agent ${secret.agentId ?? ''} as its cloudctl.auth.token; it is shown this once only.`
      : 'Trade it for tokens at POST /oauth/token (grant_type client_credentials); it is shown this once only.',
  );
  return EXIT.ok;
}

export async function createClient(
  client: ApiClient,
  io: CliIo,
  format: Format,
  body: { name: string; type: string; roles: string[]; agentId?: string },
): Promise<number> {
  const created = await sent(client, 'POST', '/clients', 201, credentialSecretSchema, body);
  return printSecret(io, format, created, 'created');
}

export async function listClients(client: ApiClient, io: CliIo, format: Format): Promise<number> {
  const credentials = await client.get('/clients', credentialViewSchema.array());
  if (format === 'json') io.out(JSON.stringify(credentials, null, 2));
  else if (credentials.length === 0) io.out('No client credentials.');
  else for (const line of new TablePrinter(COLUMNS, false).table(credentials, Date.now())) io.out(line);
  return EXIT.ok;
}

export async function revokeClient(client: ApiClient, io: CliIo, clientId: string): Promise<number> {
  const path = `/clients/${encodeURIComponent(clientId)}`;
  const revoked = await sent(client, 'DELETE', path, 200, credentialViewSchema);
  io.out(`revoked client ${revoked.clientId} (${revoked.name}): its tokens and agent streams stop now`);
  return EXIT.ok;
}

export async function rotateClient(
  client: ApiClient,
  io: CliIo,
  format: Format,
  clientId: string,
): Promise<number> {
  const path = `/clients/${encodeURIComponent(clientId)}/rotate`;
  const rotated = await sent(client, 'POST', path, 200, credentialSecretSchema);
  return printSecret(io, format, rotated, 'rotated');
}
