#!/bin/sh
# docker compose `preflight`: fails when a secret still has its well-known development value, unless the dev
# profile is on. Usage: refuse-dev-secrets.sh DEV_ENV_FILE, with the secrets and COMPOSE_PROFILES in the
# environment. Every variable of DEV_ENV_FILE except COMPOSE_PROFILES is a secret (POSIX sh: the image has no bash).
set -eu
dev_file=$1

case ",${COMPOSE_PROFILES:-}," in
  *,dev,*)
    echo "preflight: dev profile on, development secrets allowed (never do this anywhere shared)"
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
    echo "preflight: $name has its well-known development value; set a secret of your own (docs/deploy.md#production-secrets)" >&2
    refused=1
  fi
done <"$dev_file"

[ "$refused" -eq 0 ] || exit 1
echo "preflight: no development secret in use"
