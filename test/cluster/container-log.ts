// What the fake kubelet answers for one container's log: the text a test wrote on the pod, shaped by
// the kubelet's query options as the kubelet applies them (the last `tailLines` lines, each prefixed
// with its timestamp when `timestamps`, then cut after `limitBytes` bytes). Every line of a fake log
// bears the container's start time: a test knows it from the pod's status, so even timestamped
// output is a literal the test can write down.

export interface ContainerLogOptions {
  readonly tailLines?: number;
  readonly limitBytes?: number;
  readonly timestamps?: boolean;
}

/** A line's timestamp as the kubelet writes it: RFC 3339 in UTC with nine fractional digits. */
function kubeletTimestamp(time: string): string {
  const iso = new Date(time).toISOString(); // 2026-11-26T22:40:00.000Z
  return `${iso.slice(0, -1)}000000Z`;
}

/** The lines of `text`, each with its newline; a last line without one stays without, as written. */
function lines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

export function renderContainerLog(
  text: string,
  startedAt: string | undefined,
  options: ContainerLogOptions,
): Buffer {
  let selected = lines(text);
  if (options.tailLines !== undefined) {
    selected = options.tailLines === 0 ? [] : selected.slice(-options.tailLines);
  }
  if (options.timestamps) {
    const stamp = kubeletTimestamp(startedAt ?? new Date(0).toISOString());
    selected = selected.map((line) => `${stamp} ${line}`);
  }
  const bytes = Buffer.from(selected.join(''));
  return options.limitBytes === undefined ? bytes : bytes.subarray(0, options.limitBytes);
}
