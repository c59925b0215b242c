#!/usr/bin/env bash
# The layers' rule (docs/architecture.md): results live below proto/, and
# the result the renderers take lives apart from session/. A header of the
# wrong layer included by either fails this test, naming the line.
set -euo pipefail
src="$(dirname "$0")/../src"
bad=0
check() {  # folder, forbidden folder
  if hits=$(grep -rn "#include \"$2/" "$src/$1"); then
    echo "$1/ must include nothing from $2/:"
    echo "$hits"
    bad=1
  fi
}
check proto engine
check proto session
check report session
check report engine
check results engine
check results session
check results proto
check engine session
check engine proto
check session monitor
check report monitor
check engine monitor
check proto monitor
check plot session
check plot engine
check plot monitor
exit $bad
