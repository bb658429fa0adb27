#!/bin/sh
# docker compose `postgres`, mounted into /docker-entrypoint-initdb.d: the official image runs it (executable:
# run, otherwise sourced) once, when the data volume is first initialised, as the OS user postgres against its
# socket-only temporary server, after creating POSTGRES_DB. It runs db-bootstrap.sql, the same definition of the
# API's role as the Kubernetes Job, as the superuser POSTGRES_USER (the image exports PGPASSWORD for it).
#   ATRIUM_DB_ROLE            the role and schema to create (compose: atrium)
#   ATRIUM_DB_PASSWORD        its password, read by the SQL with \getenv (never on a command line)
#   ATRIUM_DB_BOOTSTRAP_SQL   where db-bootstrap.sql is mounted
# No `set -u` or `exit`: when sourced, either would change or end the image's entrypoint. A failure of psql
# fails the entrypoint (it runs under `set -e`), so the container stops instead of serving without the role.
psql --no-psqlrc -v ON_ERROR_STOP=1 \
  -v app_role="${ATRIUM_DB_ROLE:?the role to create (docker-compose.yml sets it)}" \
  --username "${POSTGRES_USER:?}" --dbname "${POSTGRES_DB:?}" \
  -f "${ATRIUM_DB_BOOTSTRAP_SQL:?where db-bootstrap.sql is mounted (docker-compose.yml sets it)}"
