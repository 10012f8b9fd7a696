#!/bin/sh
# Runs once, when the PostgreSQL volume is new (the image's docker-entrypoint-initdb.d), as the
# superuser: the only parts of Orquestra's set-up that need one. Everything else - tables,
# sample data, grants, row-level security - is `orquestra db init` / `db policies --apply`,
# run by the compose file's init service as the owner role created here.
set -eu
psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
    -v app_password="$APP_DB_PASSWORD" -v agent_password="$AGENT_DB_PASSWORD" <<'SQL'
-- The owner of Orquestra's two databases: DATABASE_URL and ORQUESTRA_STATE_URL log in as it.
CREATE ROLE orquestra LOGIN PASSWORD :'app_password';
-- The agent's least-privilege role, with the settings `db policies` expects: created here
-- because setting them takes a superuser (or CREATEROLE with ADMIN OPTION on the role).
CREATE ROLE orquestra_agent LOGIN PASSWORD :'agent_password'
    NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION NOINHERIT;
ALTER ROLE orquestra_agent SET default_transaction_read_only = on;
ALTER ROLE orquestra_agent SET statement_timeout = '30s';
ALTER ROLE orquestra_agent SET idle_in_transaction_session_timeout = '60s';
CREATE DATABASE orquestra OWNER orquestra;
CREATE DATABASE orquestra_state OWNER orquestra;

\connect orquestra_state
-- The embedding cache's vectors; creating the extension takes a superuser.
CREATE EXTENSION IF NOT EXISTS vector;

\connect orquestra
-- Orquestra sets the agent's tenant with SET LOCAL; an agent that could call set_config
-- could switch tenants by itself (the finding LAYER3_TENANT_SWITCHABLE). Only the owner keeps it.
REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) TO orquestra;
SQL
