// Parses secret references: `encrypted:<engine>!k:v!k:v` (the value) and `encryptedFile:<engine>!…`
// (a path to a file holding the value). The syntax is the original product's; the engines are ours.

export interface SecretReference {
  /** `value`: the setting receives the secret; `file`: it receives a path to a file holding it. */
  form: 'value' | 'file';
  engine: string;
  params: Record<string, string>;
}

const PREFIXES = [
  ['encrypted:', 'value'],
  ['encryptedFile:', 'file'],
] as const;

export function isSecretReference(value: string): boolean {
  return PREFIXES.some(([prefix]) => value.startsWith(prefix));
}

/** Returns the reference, or a message saying what is wrong with it. */
export function parseSecretReference(value: string): SecretReference | string {
  const match = PREFIXES.find(([prefix]) => value.startsWith(prefix));
  if (match === undefined) return 'not a secret reference';
  const [prefix, form] = match;
  const [engine = '', ...pairs] = value.slice(prefix.length).split('!');
  if (engine === '') return `expected ${prefix}<engine>!key:value…, found no engine name`;
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const colon = pair.indexOf(':');
    if (colon <= 0) return `expected key:value parameters separated by '!', found '${pair}'`;
    params[pair.slice(0, colon)] = pair.slice(colon + 1);
  }
  return { form, engine, params };
}
