import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export type RelDatabase = {
  /** Its name, `tms_rel_<pid>_<random>`. */
  name: string;
  url: string;
  /** The same database reached through another host and port (a proxy in front of PostgreSQL). */
  urlVia(port: number): string;
  /** A direct connection of the test's own, for checks that bypass the service and any proxy. */
  sql: postgres.Sql;
  drop(): Promise<void>;
};

export const postgresUrl = () => process.env.TEST_DATABASE_URL;

/**
 * A fresh, empty database on TEST_DATABASE_URL that the server processes migrate themselves. The
 * shared PostgreSQL is never stopped: only this database is created, and dropped WITH (FORCE).
 */
export async function createRelDatabase(): Promise<RelDatabase> {
  const adminUrl = postgresUrl();
  if (!adminUrl) throw new Error('this test needs TEST_DATABASE_URL');
  const name = `tms_rel_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const sql = postgres(url.toString(), { max: 3, onnotice: () => {} });
  return {
    name,
    url: url.toString(),
    urlVia: (port) => {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.toString();
    },
    sql,
    drop: async () => {
      await sql.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}
