-- The API's PostgreSQL role and schema, run as the server's superuser before the migrations: on Kubernetes by
-- the Job atrium-db-bootstrap, in docker compose by initdb-atrium-role.sh when the volume is first initialised
-- (docs/deploy.md#the-apis-postgresql-role). Idempotent: running it again only resets the password.
--   psql -v ON_ERROR_STOP=1 -v app_role=atrium -d atrium -f db-bootstrap.sql   (ATRIUM_DB_PASSWORD in the env)
-- The role owns its schema and nothing else: it may create, change and drop its own tables (so migrations run
-- as the same role), but it is no superuser, creates no database, role or other schema, and has no rights in
-- public. A SQL injection in the API therefore reaches Atrium's tables and nothing beside them.
\set ON_ERROR_STOP on
\getenv app_password ATRIUM_DB_PASSWORD
\if :{?app_password}
\else
  -- An error, not \quit, so that psql exits non-zero and the Job fails.
  DO $$ BEGIN RAISE EXCEPTION 'ATRIUM_DB_PASSWORD is not set: the role would have no password'; END $$;
\endif
SELECT current_database() AS app_database \gset

SELECT format('CREATE ROLE %I', :'app_role')
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_role') \gexec
ALTER ROLE :"app_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT
  PASSWORD :'app_password';

-- Named like the role, so PostgreSQL's default search_path ("$user", public) finds it too.
CREATE SCHEMA IF NOT EXISTS :"app_role" AUTHORIZATION :"app_role";
ALTER ROLE :"app_role" IN DATABASE :"app_database" SET search_path = :"app_role";

-- Nobody else's rights by default: no temporary tables, no objects in public; the role may only connect.
REVOKE ALL ON DATABASE :"app_database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"app_database" TO :"app_role";
REVOKE ALL ON SCHEMA public FROM PUBLIC;
