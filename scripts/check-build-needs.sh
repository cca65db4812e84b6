#!/usr/bin/env bash
# Building Herald needs nothing beyond the Swift toolchain image (README: `swift run herald` on a bare machine).
# Fails when a C file of ours includes a header, or Package.swift links a library, that no package of that image
# provides. The image is Debian 12 with Swift's toolchain, gcc, and Debian's libc6-dev, linux-libc-dev,
# libsqlite3-dev (GRDB) and zlib1g-dev (hummingbird-websocket). A missing -dev package shows here on any machine,
# even one that has it installed (libsystemd-dev made `swift run herald` fail on a bare machine once).
set -euo pipefail
cd "$(dirname "$0")/.."

allowed='^(libc6-dev|linux-libc-dev|libsqlite3-dev|zlib1g-dev|libgcc-12-dev|libstdc\+\+-12-dev):'
failed=0

# Every header our C sources include, as the preprocessor finds it, must belong to the toolchain or an allowed package.
mapfile -t sources < <(find Sources Fuzz/Sources -name '*.c' -o -name '*.h' | sort)
for source in "${sources[@]}"; do
  while read -r header; do
    [ -z "$header" ] && continue
    if ! found=$(printf '#include <%s>\n' "$header" | cc -E -M -x c - 2>/dev/null); then
      echo "$source includes <$header>, which this machine does not have: the toolchain image does not either" >&2
      failed=1
      continue
    fi
    for path in $(echo "$found" | tr ' \\' '\n\n' | grep '^/' ); do
      case "$path" in /opt/swift/*|*/lib/gcc/*) continue ;; esac
      owner=$(dpkg -S "$(realpath "$path")" 2>/dev/null || dpkg -S "$path" 2>/dev/null || echo "no package: $path")
      if ! grep -Eq "$allowed" <<<"$owner"; then
        echo "$source includes <$header>, which reaches $path from ${owner%%:*}, not in the toolchain image" >&2
        failed=1
      fi
    done
  done < <(grep -hoE '^\s*#\s*include\s*<[^>]+>' "$source" | sed -E 's/.*<([^>]+)>.*/\1/')
done

# No system library targets, module maps that link, or linker settings naming libraries: those need their -dev package.
if grep -nE '\.systemLibrary|linkerSettings|\.linkedLibrary' Package.swift Fuzz/Package.swift; then
  echo "Package.swift links a system library: load it at run time instead (see Sources/CSystemd)" >&2
  failed=1
fi
mapfile -t maps < <(find Sources Fuzz/Sources -name '*.modulemap')
if [ ${#maps[@]} -gt 0 ] && grep -nE '^\s*link\b' "${maps[@]}"; then
  echo "a module map links a system library: load it at run time instead (see Sources/CSystemd)" >&2
  failed=1
fi

[ "$failed" -eq 0 ] && echo "build needs: only the toolchain image's headers and libraries"
exit "$failed"
