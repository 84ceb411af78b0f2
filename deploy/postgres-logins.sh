# PostgreSQL logins of Neon Arena: one per service with a store, each the owner of its own
# schema and of nothing else (it builds its tables there: NEON_POSTGRES_SCHEMA). The postgres
# image runs this once, when it initialises an empty data directory (mounted into
# /docker-entrypoint-initdb.d by k8s/postgres.yaml and deploy/compose.yaml). It is idempotent:
# run it again by hand on an existing database, or after changing a password (k8s/README.md):
#   kubectl -n neon-arena exec postgres-0 -- sh /docker-entrypoint-initdb.d/10-neon-logins.sh
# Login neon_<service> (hyphens as underscores) gets the password NEON_DB_PASSWORD_<SERVICE>
# (k8s: Secret postgres-users, key <service>); the services' DATABASE_URL must carry the same.
# POSTGRES_USER stays the administrator: no service connects as it.
# Sourced (not run) by the image when not executable: no `set -u`, no `exit`.
psql -v ON_ERROR_STOP=1 --no-psqlrc --no-password \
  --username "${POSTGRES_USER:?}" --dbname "${POSTGRES_DB:?}" \
  -v dice="${NEON_DB_PASSWORD_DICE:?}" \
  -v matchmaking="${NEON_DB_PASSWORD_MATCHMAKING:?}" \
  -v scoring="${NEON_DB_PASSWORD_SCORING:?}" \
  -v tournament="${NEON_DB_PASSWORD_TOURNAMENT:?}" \
  -v rules_neon_reign="${NEON_DB_PASSWORD_RULES_NEON_REIGN:?}" \
  -v rules_neon="${NEON_DB_PASSWORD_RULES_NEON:?}" \
  -v rules_neon_knights_2086="${NEON_DB_PASSWORD_RULES_NEON_KNIGHTS_2086:?}" \
  -v rules_barbaric="${NEON_DB_PASSWORD_RULES_BARBARIC:?}" \
  <<'SQL'
-- nobody but the logins named below may connect; nobody may create in the public schema
REVOKE ALL ON DATABASE :"DBNAME" FROM PUBLIC;
REVOKE ALL ON SCHEMA public FROM PUBLIC;

-- dice
SELECT 'CREATE ROLE neon_dice' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_dice') \gexec
ALTER ROLE neon_dice WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'dice';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_dice;
CREATE SCHEMA IF NOT EXISTS neon_dice AUTHORIZATION neon_dice;
ALTER SCHEMA neon_dice OWNER TO neon_dice;
REVOKE ALL ON SCHEMA neon_dice FROM PUBLIC;

-- matchmaking
SELECT 'CREATE ROLE neon_matchmaking' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_matchmaking') \gexec
ALTER ROLE neon_matchmaking WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'matchmaking';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_matchmaking;
CREATE SCHEMA IF NOT EXISTS neon_matchmaking AUTHORIZATION neon_matchmaking;
ALTER SCHEMA neon_matchmaking OWNER TO neon_matchmaking;
REVOKE ALL ON SCHEMA neon_matchmaking FROM PUBLIC;

-- scoring
SELECT 'CREATE ROLE neon_scoring' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_scoring') \gexec
ALTER ROLE neon_scoring WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'scoring';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_scoring;
CREATE SCHEMA IF NOT EXISTS neon_scoring AUTHORIZATION neon_scoring;
ALTER SCHEMA neon_scoring OWNER TO neon_scoring;
REVOKE ALL ON SCHEMA neon_scoring FROM PUBLIC;

-- tournament
SELECT 'CREATE ROLE neon_tournament' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_tournament') \gexec
ALTER ROLE neon_tournament WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'tournament';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_tournament;
CREATE SCHEMA IF NOT EXISTS neon_tournament AUTHORIZATION neon_tournament;
ALTER SCHEMA neon_tournament OWNER TO neon_tournament;
REVOKE ALL ON SCHEMA neon_tournament FROM PUBLIC;

-- rules-neon-reign
SELECT 'CREATE ROLE neon_rules_neon_reign' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_rules_neon_reign') \gexec
ALTER ROLE neon_rules_neon_reign WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'rules_neon_reign';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_rules_neon_reign;
CREATE SCHEMA IF NOT EXISTS neon_rules_neon_reign AUTHORIZATION neon_rules_neon_reign;
ALTER SCHEMA neon_rules_neon_reign OWNER TO neon_rules_neon_reign;
REVOKE ALL ON SCHEMA neon_rules_neon_reign FROM PUBLIC;

-- rules-neon
SELECT 'CREATE ROLE neon_rules_neon' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_rules_neon') \gexec
ALTER ROLE neon_rules_neon WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'rules_neon';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_rules_neon;
CREATE SCHEMA IF NOT EXISTS neon_rules_neon AUTHORIZATION neon_rules_neon;
ALTER SCHEMA neon_rules_neon OWNER TO neon_rules_neon;
REVOKE ALL ON SCHEMA neon_rules_neon FROM PUBLIC;

-- rules-neon-knights-2086
SELECT 'CREATE ROLE neon_rules_neon_knights_2086' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_rules_neon_knights_2086') \gexec
ALTER ROLE neon_rules_neon_knights_2086 WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'rules_neon_knights_2086';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_rules_neon_knights_2086;
CREATE SCHEMA IF NOT EXISTS neon_rules_neon_knights_2086 AUTHORIZATION neon_rules_neon_knights_2086;
ALTER SCHEMA neon_rules_neon_knights_2086 OWNER TO neon_rules_neon_knights_2086;
REVOKE ALL ON SCHEMA neon_rules_neon_knights_2086 FROM PUBLIC;

-- rules-barbaric
SELECT 'CREATE ROLE neon_rules_barbaric' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'neon_rules_barbaric') \gexec
ALTER ROLE neon_rules_barbaric WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'rules_barbaric';
GRANT CONNECT ON DATABASE :"DBNAME" TO neon_rules_barbaric;
CREATE SCHEMA IF NOT EXISTS neon_rules_barbaric AUTHORIZATION neon_rules_barbaric;
ALTER SCHEMA neon_rules_barbaric OWNER TO neon_rules_barbaric;
REVOKE ALL ON SCHEMA neon_rules_barbaric FROM PUBLIC;

SQL
