// The fields of a webhook that are templates: `uriTemplate`, each header value that is not a secret
// reference, and `bodyTemplate.inline`. Reads a parsed webhook or a raw one from the file (anything
// not a string is skipped), so the load-time checks and the renderer look at the same fields.

import { isRecord } from '../../../lib/is-record.ts';
import { formatKeyPath, type KeyPath } from '../../../lib/yaml-source.ts';
import { isSecretValue } from './webhook.ts';

export interface TemplateField {
  /** Path within the webhook, e.g. ['headers', 0, 'value']. */
  path: KeyPath;
  /** How messages name the field, e.g. `headers[0].value`. */
  field: string;
  template: string;
}

export function webhookTemplates(webhook: unknown): TemplateField[] {
  if (!isRecord(webhook)) return [];
  const fields: TemplateField[] = [];
  const add = (path: KeyPath, value: unknown) => {
    if (typeof value === 'string') fields.push({ path, field: formatKeyPath(path), template: value });
  };
  add(['uriTemplate'], webhook.uriTemplate);
  if (Array.isArray(webhook.headers))
    webhook.headers.forEach((header, index) => {
      if (isRecord(header) && typeof header.value === 'string' && !isSecretValue(header.value))
        add(['headers', index, 'value'], header.value);
    });
  if (isRecord(webhook.bodyTemplate)) add(['bodyTemplate', 'inline'], webhook.bodyTemplate.inline);
  return fields;
}
