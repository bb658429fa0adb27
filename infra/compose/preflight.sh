#!/bin/sh
# docker compose `preflight`. Usage: preflight.sh DEV_ENV_FILE [CHECK...], with COMPOSE_PROFILES and every
# variable of DEV_ENV_FILE in the environment. Unless the dev profile is on, it fails when any of those variables
# (the secrets, and ATRIUM_REALM_FILE) still has its value in DEV_ENV_FILE, and runs CHECK, a command of its own
# (compose: the realm check, infra/keycloak/deployment-realm.ts), failing when it fails; it reports both.
# POSIX sh: the image's /bin/sh may be dash.
set -eu
dev_file=$1
shift

case ",${COMPOSE_PROFILES:-}," in
  *,dev,*)
    echo "preflight: dev profile on, development values allowed (never do this anywhere shared)"
    exit 0
    ;;
esac

refused=0
while IFS= read -r line || [ -n "$line" ]; do
  case $line in '' | '#'*) continue ;; esac
  name=${line%%=*}
  dev_value=${line#*=}
  [ "$name" = COMPOSE_PROFILES ] && continue
  case $name in *[!A-Z0-9_]* | '' | [0-9]*)
    echo "preflight: $dev_file has a line that is not NAME=value: $line" >&2
    exit 2
    ;;
  esac
  eval "value=\${$name-}"
  if [ -z "$value" ]; then
    echo "preflight: $name is not set" >&2
    refused=1
  elif [ "$value" = "$dev_value" ]; then
    echo "preflight: $name has its well-known development value; set your own (docs/deploy.md#production-secrets)" >&2
    refused=1
  fi
done <"$dev_file"

if [ "$#" -gt 0 ] && ! "$@"; then
  refused=1
fi

[ "$refused" -eq 0 ] || exit 1
echo "preflight: no development value in use"
