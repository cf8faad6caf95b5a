// A Spinnaker artifact as clients send it (kork's Artifact: type, name, version, location,
// reference, metadata, artifactAccount, ...). Orca serialises unset fields as null, so every field
// may be null or missing; unknown fields are kept.
import { z } from 'zod';

const text = z.string().nullish();

export const artifactSchema = z
  .looseObject({
    type: text.describe('docker/image, orchestrator/configMap, embedded/base64, ...'),
    customKind: z.boolean().nullish(),
    name: text.describe('what the artifact is matched by: the image name, the unversioned object name'),
    version: text,
    location: text.describe('the namespace of an orchestrator/* artifact'),
    reference: text.describe(
      'what replaces a match: the image with its tag, the versioned name; base64 content',
    ),
    metadata: z
      .record(z.string(), z.unknown())
      .nullish()
      .describe('`account`: the account of an orchestrator/* artifact'),
    artifactAccount: text,
    provenance: text,
    uuid: text,
  })
  .describe('Artifact');
export type Artifact = z.infer<typeof artifactSchema>;
