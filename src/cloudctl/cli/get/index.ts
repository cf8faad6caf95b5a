// `cloudctl get` and the pieces other commands print with: kubectl's tables and AGE.
export { ageOf, humanAge } from './age.ts';
export { getCommand, KINDS, OUTPUT_FORMATS } from './get-command.ts';
export { type Column, TablePrinter } from './table.ts';
