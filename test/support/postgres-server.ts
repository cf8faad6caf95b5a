// A throwaway PostgreSQL server for tests: initdb in a temporary directory, started on a free
// loopback port with trust authentication (or, given a password, scram-sha-256 over TCP, so a wrong
// password is refused), removed when stopped. PostgreSQL refuses to run as root,
// so under root the cluster belongs to the `postgres` OS user (Debian's postgresql package makes it).
import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../cluster/free-port.ts';

const run = promisify(execFile);

export interface PostgresServer {
  /** With the password, when the server has one. */
  url: string;
  /** The same URL without a password. */
  urlWithoutPassword: string;
  /** Stops the server at once (clients see their connections fail) and keeps its data. */
  kill(): Promise<void>;
  /** Starts the killed server again, on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The newest installed server's bin directory, such as /usr/lib/postgresql/15/bin. */
function findBinDir(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (newest === undefined) {
    throw new Error(
      `no PostgreSQL server under ${base}: install Debian's postgresql package (apt-get install -y postgresql)`,
    );
  }
  return join(base, newest, 'bin');
}

function asPostgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

export interface PostgresOptions {
  /** The `postgres` user's password; TCP connections must then give it. */
  password?: string;
}

export async function startPostgres(settings: PostgresOptions = {}): Promise<PostgresServer> {
  const bin = findBinDir();
  const user = asPostgresUser();
  const dir = await mkdtemp(join(tmpdir(), 'orch-agent-pg-'));
  const dataDir = join(dir, 'data');
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const options = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const port = await freePort();
  const start = () =>
    run(
      join(bin, 'pg_ctl'),
      [
        '-D',
        dataDir,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-t',
        '60',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
        'start',
      ],
      { ...options, env: { ...process.env, LC_ALL: 'C' } },
    );
  const kill = () =>
    run(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], options).then(
      () => undefined,
      () => undefined,
    );
  const auth = ['--auth=trust'];
  if (settings.password !== undefined) {
    const pwfile = join(dir, 'pwfile');
    await writeFile(pwfile, `${settings.password}\n`, { mode: 0o600 });
    if (user !== undefined) chownSync(pwfile, user.uid, user.gid);
    auth.splice(0, 1, '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`);
  }
  try {
    await run(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', ...auth, '-E', 'UTF8', '--no-sync'], {
      ...options,
      env: { ...process.env, LC_ALL: 'C' },
    });
    await start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`);
  }
  const urlWithoutPassword = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url:
      settings.password === undefined
        ? urlWithoutPassword
        : `postgres://postgres:${encodeURIComponent(settings.password)}@127.0.0.1:${port}/postgres`,
    urlWithoutPassword,
    kill,
    async restart() {
      await start();
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
