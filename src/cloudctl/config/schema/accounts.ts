// `accounts[]`: orchestrator accounts declared in cloudctl's config file. Each entry is a credentials
// definition, the body `POST /credentials` takes; the credentials feature checks it in full (this
// folder cannot import it without a cycle) when the file is validated and when cloudctl starts.
import { z } from 'zod';

export const accountsSchema = z
  .array(
    z
      .looseObject({
        name: z.string().min(1).describe('account name: unique among every account cloudctl knows'),
      })
      .describe(
        'a credentials definition, as POST /credentials takes it (CredentialsDefinition in /v2/api-docs): `type: orchestrator`, `permissions`, `orchConfigFile` or `orchConfigContents`, ...; credentials only as `encrypted:`/`encryptedFile:` references, resolved by the agent that holds the account',
      ),
  )
  .default([])
  .describe(
    'accounts defined in this file: read-only over the API (409 naming this file); a start applies additions, changes and removals. An agent defining the same name wins, as for every cloudctl account',
  );
