// The token request's `audience`: the API a webhook job wants its token for. cloudctl's tokens are
// good for cloudctl's API only, so an audience naming another API (a job written for the original
// product still says its cloud's URL) is refused in words, rather than issuing a token the job will
// then send to the wrong place or find refused there. Left out, it is not asked for.

/** An API address in the one form that compares: no trailing slash, host lower-cased. */
function normalized(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

function parsed(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * Why `audience` is not this cloudctl, or undefined when it is: cloudctl's external URL
 * (`http.externalUrl`, else its host and port), or the address the job reached it at (its Host
 * header), which is the right answer behind a Service or an ingress cloudctl was not told about.
 */
export function audienceProblem(
  audience: string | undefined,
  externalUrl: string,
  host: string | undefined,
): string | undefined {
  if (audience === undefined) return undefined;
  const asked = parsed(audience);
  const accepted = [
    parsed(externalUrl),
    host === undefined ? undefined : parsed(`${asked?.protocol}//${host}`),
  ];
  if (
    asked !== undefined &&
    accepted.some((url) => url !== undefined && normalized(url) === normalized(asked))
  )
    return undefined;
  return `audience ${JSON.stringify(audience)} is not this cloudctl's API: ask for ${JSON.stringify(externalUrl)} (or the address you reach cloudctl at), or leave audience out`;
}
