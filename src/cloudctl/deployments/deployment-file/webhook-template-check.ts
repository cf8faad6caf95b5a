// What can be known about webhook templates before anything runs: each template parses and names
// only known vendor variables; the URI is http(s) where its scheme is written out; a webhook that
// waits for a callback tells the job where to call back; and every `runWebhook` step declares the
// `{{context.*}}` names its webhook uses. Values (and so the final URL) are checked when rendering.
import { isRecord } from '../../../lib/is-record.ts';
import { contextNames, parseTemplate, usesVendor } from '../webhook/webhook-template.ts';
import { webhookTemplates } from '../webhook/webhook-templates.ts';
import type { Finding } from './finding.ts';
import { webhookSteps } from './webhook-steps.ts';

function uriScheme(uriTemplate: string, findings: Finding[], path: Finding['path']) {
  const literal = parseTemplate(uriTemplate);
  if (!literal.ok) return;
  const [first] = literal.parts;
  const whole = literal.parts.length === 1 && typeof first === 'string';
  if (typeof first !== 'string' || (!whole && !first.includes('://'))) return;
  let url: URL | undefined;
  try {
    url = new URL(whole ? first : `${first.slice(0, first.indexOf('://'))}://host`);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    findings.push({
      path,
      at: 'value',
      message: `expected an http:// or https:// URL, found '${uriTemplate}'`,
    });
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
      for (const name of contextNames(parsed.parts)) uses.push({ name, field });
      callsBack ||= usesVendor(parsed.parts, 'callbackUri');
    }
    if (typeof webhook.uriTemplate === 'string')
      uriScheme(webhook.uriTemplate, findings, ['webhooks', index, 'uriTemplate']);
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
