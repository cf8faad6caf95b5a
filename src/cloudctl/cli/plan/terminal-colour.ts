// Whether the plan's diff is coloured: only when standard output is a terminal (a pipe, a file or a CI
// log gets plain text, as kubectl and git do) and NO_COLOR is unset or empty (no-color.org: "when
// present and not an empty string" it turns colour off).
export function wantsColour(env: NodeJS.ProcessEnv, stdoutIsTerminal: boolean): boolean {
  return stdoutIsTerminal && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}
