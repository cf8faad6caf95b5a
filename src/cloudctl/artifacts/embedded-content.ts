// The content of an artifact that carries it: `embedded/base64` and `remote/base64` artifacts hold
// their content, base64-encoded, in `reference`. These are the only artifacts cloudctl can read: it
// reaches no artifact store. A refusal names the artifact field at fault, for the caller's message.
import { CodedError } from '../../lib/coded-error.ts';
import type { Artifact } from './artifact.ts';
import { EMBEDDED_ARTIFACT_ACCOUNT } from './artifact-accounts.ts';

export const ARTIFACT_ERRORS = {
  ARTIFACT_TYPE_UNREADABLE: 'the artifact type is kept in a store cloudctl does not reach',
  ARTIFACT_ACCOUNT_UNKNOWN: 'the artifact names an artifact account cloudctl does not have',
  ARTIFACT_REFERENCE_INVALID: 'the reference is not base64 content',
} as const;

export class ArtifactError extends CodedError<keyof typeof ARTIFACT_ERRORS> {
  /** The artifact field at fault: `type`, `artifactAccount` or `reference`. */
  readonly field: string;
  constructor(code: keyof typeof ARTIFACT_ERRORS, field: string, message: string) {
    super(code, message);
    this.field = field;
  }
}

const READABLE_TYPES: readonly string[] = EMBEDDED_ARTIFACT_ACCOUNT.types;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The artifact's content; `account` is the one to assume where the artifact names none. */
export function embeddedContent(artifact: Artifact, account?: string | null): Buffer {
  const type = artifact.type ?? '';
  if (!READABLE_TYPES.includes(type)) {
    throw new ArtifactError(
      'ARTIFACT_TYPE_UNREADABLE',
      'type',
      `cannot read an artifact of type '${type}': cloudctl reaches no artifact store; ` +
        `it reads ${READABLE_TYPES.join(' and ')} artifacts, which carry their content`,
    );
  }
  const named = artifact.artifactAccount || account;
  if (named && named !== EMBEDDED_ARTIFACT_ACCOUNT.name) {
    throw new ArtifactError(
      'ARTIFACT_ACCOUNT_UNKNOWN',
      'artifactAccount',
      `unknown artifact account '${named}'; cloudctl's is '${EMBEDDED_ARTIFACT_ACCOUNT.name}'`,
    );
  }
  // Line breaks are tolerated: base64 tools wrap their output.
  const reference = (artifact.reference ?? '').replace(/\s+/g, '');
  if (reference === '' || !BASE64.test(reference) || reference.length % 4 === 1) {
    throw new ArtifactError(
      'ARTIFACT_REFERENCE_INVALID',
      'reference',
      'expected the base64 text of the content',
    );
  }
  return Buffer.from(reference, 'base64');
}
