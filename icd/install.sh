#!/usr/bin/env bash
# Installs (or uninstalls) the ventus-icd OpenCL driver and registers it with the ICD loader.
#
#   icd/install.sh [--prefix DIR] [--libdir DIR] [--user VENDORS_DIR] [--vendors-dir DIR]
#                  [--lib FILE] [--uninstall] [-h|--help]
#
# Default (system-wide, as root): builds the release cdylib, copies it to /usr/local/lib, the
# vendor-extension header to /usr/local/include/CL/cl_ventus.h, and writes
# /etc/OpenCL/vendors/ventus.icd naming the library by absolute path. Idempotent: files already up
# to date are left alone. Every action is printed.
#
#   --prefix DIR        install prefix; the library goes to DIR/lib (default /usr/local, or
#                       $HOME/.local with --user)
#   --libdir DIR        the library directory itself (overrides --prefix)
#   --user DIR          per-user registration: write DIR/ventus.icd instead of the system's vendors
#                       directory; use it with `export OCL_ICD_VENDORS=DIR`
#   --vendors-dir DIR   the system vendors directory (default /etc/OpenCL/vendors)
#   --lib FILE          install this already-built libventus_icd.so instead of building one
#   --uninstall         remove the installed library and ventus.icd (same options locate them)
#   DESTDIR=...         (environment) staging root prepended to every path written, for packaging
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="" libdir="" user_dir="" vendors_dir="/etc/OpenCL/vendors" lib_src="" uninstall=0

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
need() { [[ $# -ge 2 && -n "$2" ]] || { echo "install.sh: $1 needs a value" >&2; exit 2; }; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --prefix) need "$@"; prefix="$2"; shift 2 ;;
        --libdir) need "$@"; libdir="$2"; shift 2 ;;
        --user) need "$@"; user_dir="$2"; shift 2 ;;
        --vendors-dir) need "$@"; vendors_dir="$2"; shift 2 ;;
        --lib) need "$@"; lib_src="$2"; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done

abspath() { case "$1" in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac; }
if [[ -z "$prefix" ]]; then
    if [[ -n "$user_dir" ]]; then prefix="${HOME:?HOME is not set}/.local"; else prefix="/usr/local"; fi
fi
[[ -n "$libdir" ]] || libdir="$prefix/lib"
libdir="$(abspath "$libdir")"
if [[ -n "$user_dir" ]]; then icd_dir="$(abspath "$user_dir")"; else icd_dir="$(abspath "$vendors_dir")"; fi
lib_dst="$libdir/libventus_icd.so"
header_dst="$prefix/include/CL/cl_ventus.h"
icd_file="$icd_dir/ventus.icd"
destdir="${DESTDIR:-}"

if [[ $uninstall -eq 1 ]]; then
    for f in "$destdir$icd_file" "$destdir$lib_dst" "$destdir$header_dst"; do
        if [[ -e "$f" || -L "$f" ]]; then
            rm -f -- "$f"
            echo "removed $f"
        else
            echo "already absent: $f"
        fi
    done
    exit 0
fi

# The library: given, or built now (release profile; honours CARGO_TARGET_DIR).
if [[ -z "$lib_src" ]]; then
    command -v cargo >/dev/null 2>&1 || { echo "install.sh: cargo is needed to build (or pass --lib FILE)" >&2; exit 1; }
    echo "building: cargo build --release --lib (in $repo)"
    (cd "$repo" && cargo build --release --lib --quiet)
    lib_src="${CARGO_TARGET_DIR:-$repo/target}/release/libventus_icd.so"
    [[ "$lib_src" == /* ]] || lib_src="$repo/$lib_src"
fi
[[ -f "$lib_src" ]] || { echo "install.sh: no library at $lib_src" >&2; exit 1; }

mkdir -p -- "$destdir$libdir" "$destdir$icd_dir"
if [[ -f "$destdir$lib_dst" ]] && cmp -s -- "$lib_src" "$destdir$lib_dst"; then
    echo "up to date: $destdir$lib_dst"
else
    install -m 0755 -- "$lib_src" "$destdir$lib_dst.tmp.$$"
    mv -f -- "$destdir$lib_dst.tmp.$$" "$destdir$lib_dst"
    echo "installed $destdir$lib_dst (from $lib_src)"
fi

# The vendor-extension header (include/CL/cl_ventus.h: launch statistics).
mkdir -p -- "$(dirname "$destdir$header_dst")"
if [[ -f "$destdir$header_dst" ]] && cmp -s -- "$repo/include/CL/cl_ventus.h" "$destdir$header_dst"; then
    echo "up to date: $destdir$header_dst"
else
    install -m 0644 -- "$repo/include/CL/cl_ventus.h" "$destdir$header_dst"
    echo "installed $destdir$header_dst"
fi

# The .icd file names the library by absolute (final, DESTDIR-less) path.
if [[ -f "$destdir$icd_file" && "$(cat -- "$destdir$icd_file")" == "$lib_dst" ]]; then
    echo "up to date: $destdir$icd_file"
else
    printf '%s\n' "$lib_dst" > "$destdir$icd_file.tmp.$$"
    chmod 0644 -- "$destdir$icd_file.tmp.$$"
    mv -f -- "$destdir$icd_file.tmp.$$" "$destdir$icd_file"
    echo "wrote $destdir$icd_file -> $lib_dst"
fi

if [[ -n "$destdir" ]]; then
    echo "staged under DESTDIR=$destdir (nothing registered on this machine)"
elif [[ -n "$user_dir" ]]; then
    echo "per-user registration: export OCL_ICD_VENDORS=$icd_dir   (then: clinfo -l)"
else
    echo "registered system-wide in $icd_dir (check with: clinfo -l)"
fi
