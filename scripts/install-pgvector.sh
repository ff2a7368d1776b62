#!/usr/bin/env bash
# Installs pgvector (the `vector` extension: hybrid knowledge retrieval, docs/knowledge.md) into the
# local PostgreSQL when `create extension vector` is not available yet. Debian's own sources do not
# carry it for every server version, so it is built from its source: the tagged release read from the
# Go module proxy (which serves any GitHub tag as a zip), compiled against the server's headers
# (postgresql-server-dev-<major>, installed with apt when missing), the files `make install` writes
# cached under the user cache dir so a later run only copies them. Nothing happens when the extension
# is already there. The platform works without it (full-text retrieval only).
#
#   scripts/install-pgvector.sh            # PGVECTOR_VERSION=v0.8.0 by default
#   PGHOST=127.0.0.1 PGUSER=postgres ...    # the server asked whether `vector` is available
set -euo pipefail

export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
PROXY="https://proxy.golang.org/github.com/pgvector/pgvector/@v"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"

available() {
  [ "$(psql -d postgres -Atqc "select count(*) from pg_available_extensions where name = 'vector'" 2>/dev/null)" = "1" ]
}

if available; then
  echo "pgvector: the vector extension is available"
  exit 0
fi

# built for the running server's major version, with that version's pg_config
PG_MAJOR="$(( $(psql -d postgres -Atqc 'show server_version_num') / 10000 ))"
PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}"
VERSION="${PGVECTOR_VERSION:-v0.8.0}"
LISTED="$(curl -fsS --max-time 60 "$PROXY/list" | sort -V)"
if ! grep -qx "$VERSION" <<<"$LISTED"; then
  VERSION="$(tail -n 1 <<<"$LISTED")"
fi
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/voice-platform/pgvector-$VERSION-pg$PG_MAJOR"
STAGE="$CACHE/stage"

if [ ! -f "$CACHE/built" ]; then
  # the server's headers (and build makefiles): the server-dev package
  if [ ! -f "$("$PG_CONFIG" --includedir-server)/postgres.h" ] || [ ! -f "$("$PG_CONFIG" --pgxs)" ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" >/dev/null
  fi
  rm -rf "$CACHE"
  mkdir -p "$CACHE"
  curl -fsS --max-time 300 -o "$CACHE/source.zip" "$PROXY/$VERSION.zip"
  (cd "$CACHE" && unzip -q source.zip)
  SRC="$CACHE/github.com/pgvector/pgvector@$VERSION"
  # OPTFLAGS="": no -march=native, so the cached build also runs on another CPU of the same architecture
  make -C "$SRC" -s PG_CONFIG="$PG_CONFIG" OPTFLAGS=""
  make -C "$SRC" -s PG_CONFIG="$PG_CONFIG" OPTFLAGS="" install DESTDIR="$STAGE"
  touch "$CACHE/built"
fi

# the staged files (the library, the control file, the SQL scripts) copied to where the server reads them
(cd "$STAGE" && find . -type f -print0 | while IFS= read -r -d '' f; do
  $SUDO install -D -m 0644 "$f" "/${f#./}"
done)
if available; then
  echo "pgvector: installed $VERSION for PostgreSQL $PG_MAJOR"
else
  echo "pgvector: installed $VERSION, but the server does not list the vector extension" >&2
  exit 1
fi
