// The artifact routes over real HTTP: the accounts cloudctl lists, and the content of an embedded
// artifact as Orca fetches it before deploying a manifest artifact (PUT /artifacts/fetch/, with the
// trailing slash its client sends); other artifacts are refused, naming what is wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestControlPlane, type TestControlPlane, USERS } from '../harness.ts';
import { type ApiClient, apiClient } from '../http-client.ts';

let cp: TestControlPlane;
let user: ApiClient;

const YAML = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: info\n';

beforeAll(async () => {
  cp = await startTestControlPlane();
  user = apiClient(cp.url, USERS.ops.token);
});

afterAll(async () => {
  await cp?.close();
});

describe('artifact routes', () => {
  it('list the embedded and orchestrator artifact accounts, to a user with a token only', async () => {
    const listed = await user.get('/artifacts/credentials');
    expect(listed.status).toBe(200);
    expect(listed.body.map((a: { name: string }) => a.name)).toEqual(['embedded-artifact', 'orchestrator']);
    expect((await apiClient(cp.url).get('/artifacts/credentials')).status).toBe(401);
  });

  it('answer the content of an embedded/base64 artifact, with and without the trailing slash', async () => {
    const artifact = {
      type: 'embedded/base64',
      name: 'settings.yaml',
      reference: Buffer.from(YAML).toString('base64'),
      artifactAccount: 'embedded-artifact',
      version: null,
      location: null,
      metadata: {},
      customKind: false,
    };
    for (const path of ['/artifacts/fetch/', '/artifacts/fetch']) {
      const fetched = await user.put(path, artifact);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-type')).toBe('application/octet-stream');
      expect(fetched.body).toBe(YAML);
    }
  });

  it('refuse an artifact kept in a store, an unknown account and content that is not base64', async () => {
    const github = await user.put('/artifacts/fetch/', {
      type: 'github/file',
      name: 'deploy/web.yaml',
      reference: 'https://api.github.com/repos/o/r/contents/deploy/web.yaml',
      artifactAccount: 'github',
    });
    expect(github.status).toBe(400);
    expect(github.body.message).toMatch(/^body\.type: cannot read an artifact of type 'github\/file'/);
    const account = await user.put('/artifacts/fetch/', {
      type: 'embedded/base64',
      reference: Buffer.from(YAML).toString('base64'),
      artifactAccount: 'my-s3',
    });
    expect(account.body.message).toBe(
      "body.artifactAccount: unknown artifact account 'my-s3'; cloudctl's is 'embedded-artifact'",
    );
    const garbled = await user.put('/artifacts/fetch/', {
      type: 'embedded/base64',
      reference: 'not base64!',
    });
    expect(garbled.status).toBe(400);
    expect(garbled.body.message).toBe('body.reference: expected the base64 text of the content');
  });
});
