// pino-roll ships no type declarations; this covers the part of its API the logger uses.
declare module 'pino-roll' {
  import type SonicBoom from 'sonic-boom';

  interface PinoRollOptions {
    file: string | (() => string);
    size?: number | string;
    frequency?: number | string;
    extension?: string;
    symlink?: boolean;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    dateFormat?: string;
    mkdir?: boolean;
    /** Passed to SonicBoom: write synchronously. */
    sync?: boolean;
  }

  export default function pinoRoll(options: PinoRollOptions): Promise<SonicBoom>;
}
