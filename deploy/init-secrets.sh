#!/bin/sh
# Creates the docker compose secrets once: MASTER_KEY (encrypts the API secrets stored in MongoDB)
# and ADMIN_TOKEN, in .env beside docker-compose.yml, which `docker compose` reads on every run.
# Never overwrites them: the MongoDB volume's secrets open only with the MASTER_KEY they were
# written with (the server refuses to start with another one). Keep .env, back it up with the volume.
set -eu
cd "$(dirname "$0")/.."
if [ -f .env ] && grep -q '^MASTER_KEY=' .env; then
  echo ".env already holds MASTER_KEY: kept as it is"
  exit 0
fi
umask 077
{
  echo "MASTER_KEY=$(head -c 32 /dev/urandom | base64 | tr -d '\n')"
  echo "ADMIN_TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
} >> .env
chmod 600 .env
echo "Wrote MASTER_KEY and ADMIN_TOKEN to $(pwd)/.env (owner-only). Keep this file: it is the only copy of the key."
