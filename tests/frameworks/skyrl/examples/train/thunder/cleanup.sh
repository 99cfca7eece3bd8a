#!/usr/bin/env bash
# Idiom from NovaSky-AI/SkyRL@a9564572eb8e:examples/train/thunder_agent/scripts/r2egym_32b/cleanup_docker.sh
# (a case nested in a case inside a loop; the reader once crashed on it).
# Written for sphinx-rlresources' tests; not a copy.
while read -r id; do
  name="$(docker inspect "$id" --format '{{.Name}}')"
  case "$name" in
    /job-*)
      case "$PWD" in
        /data/*) found+=("$id") ;;
      esac
      ;;
  esac
done < <(docker ps -aq)
