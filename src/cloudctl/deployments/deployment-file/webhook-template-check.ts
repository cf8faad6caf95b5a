// What can be known about webhook templates before anything runs: each template parses and names
// only known vendor variables; the URI is http(s) where its scheme is written out; a webhook that
// waits for a callback tells the job where to call back; and every `runWebhook` step declares the
// `{{context.*}}` names its webhook uses. Values (and so the final URL) are checked when rendering.
import { isRecord } from '../../../lib/is-record.ts';
import type { Finding } from './finding.ts';
import { isHttpUrl } from './http-url.ts';
import { webhookSteps } from './webhook-steps.ts';
import { contextNames, parseTemplate, type TemplatePart, usesVendor } from './webhook-template.ts';
import { webhookTemplates } from './webhook-templates.ts';

/**
 * Whether a parsed uriTemplate can render to an http(s) URL, judged by what is written out: the whole
 * URL when it has no placeholder, else the scheme of a literal start (`https://{{context.host}}/…`).
 */
function mayBeHttpUrl(parts: ReadonlyArray<TemplatePart>): boolean {
  const [first] = parts;
  if (typeof first !== 'string') return true;
  if (parts.length === 1) return isHttpUrl(first);
  const scheme = first.indexOf('://');
  return scheme < 0 || isHttpUrl(`${first.slice(0, scheme)}://host`);
}

export function webhookTemplateChecks(raw: Record<string, unknown>): Finding[] {
  const findings: Finding[] = [];
  const usedContext = new Map<string, Array<{ name: string; field: string }>>();
  const webhooks = Array.isArray(raw.webhooks) ? raw.webhooks : [];
  webhooks.forEach((webhook, index) => {
    if (!isRecord(webhook)) return;
    const uses: Array<{ name: string; field: string }> = [];
    let callsBack = false;
    let allParsed = true;
    for (const { path, field, template } of webhookTemplates(webhook)) {
      const parsed = parseTemplate(template);
      if (!parsed.ok) {
        allParsed = false;
        findings.push({ path: ['webhooks', index, ...path], at: 'value', message: parsed.message });
        continue;
      }
      if (field === 'uriTemplate' && !mayBeHttpUrl(parsed.parts))
        findings.push({
          path: ['webhooks', index, ...path],
          at: 'value',
          message: `expected an http:// or https:// URL, found '${template}'`,
        });
      for (const name of contextNames(parsed.parts)) uses.push({ name, field });
      callsBack ||= usesVendor(parsed.parts, 'callbackUri');
    }
    if (allParsed && !callsBack && webhook.disableCallback !== true)
      findings.push({
        path: ['webhooks', index],
        at: 'value',
        message:
          'the job is never told where to call back: put {{vendor.callbackUri}}/callback in uriTemplate, a header or bodyTemplate.inline, or set disableCallback: true',
      });
    if (typeof webhook.name === 'string' && !usedContext.has(webhook.name))
      usedContext.set(webhook.name, uses);
  });

  for (const site of webhookSteps(raw)) {
    if (typeof site.name !== 'string') continue;
    const uses = usedContext.get(site.name) ?? [];
    const declared = isRecord(site.context) ? Object.keys(site.context) : [];
    const missing = uses.filter((u) => !declared.includes(u.name));
    if (missing.length === 0) continue;
    const list = missing.map((u) => `{{context.${u.name}}} (in ${u.field})`).join(', ');
    findings.push({
      path: isRecord(site.context) ? [...site.path, 'context'] : site.path,
      at: 'key',
      message: `webhook '${site.name}' uses ${list}, which this step does not declare in its context${
        declared.length === 0 ? '' : ` (declared: ${declared.join(', ')})`
      }`,
    });
  }
  return findings;
}
