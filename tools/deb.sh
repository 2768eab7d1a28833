#!/usr/bin/env bash
# Builds a Debian package of a sightline binary with dpkg-deb alone (no cargo-deb to build):
#   tools/deb.sh BINARY OUT_DIR      ->  OUT_DIR/sightline_VERSION_ARCH.deb
# The package holds the binary (stripped) in /usr/bin, its desktop entry and icon (the file
# manager opens a trace with the app: a shared-mime-info type for Sightline traces), man pages
# made from the command line's definition (`sightline man`), and bash, zsh and fish
# completions (`sightline completions`) in the system's folders. dpkg's triggers refresh the
# desktop, MIME and icon caches, so the package needs no maintainer scripts and leaves
# nothing behind on removal. docs/install.md says how to build and install it.
# SIGHTLINE_DEB_FAST=1 compresses with zstd -1 instead of xz -6: a 147 MB debug binary packs in
# about 1 s instead of 2 minutes (CI's .ci/deb); the package is larger (43 MB against 27 MB).
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: tools/deb.sh BINARY OUT_DIR" >&2
    exit 2
fi
binary=$1
out=$2
repo="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -x "$binary" ]; then
    echo "tools/deb.sh: $binary is not an executable" >&2
    exit 2
fi
for tool in dpkg-deb strip gzip; do
    command -v "$tool" >/dev/null || { echo "tools/deb.sh: needs $tool" >&2; exit 2; }
done

version=$("$binary" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
chmod 755 "$root"

install -d "$root/DEBIAN" "$root/usr/bin"
install -m 755 "$binary" "$root/usr/bin/sightline"
strip --strip-unneeded "$root/usr/bin/sightline"
self="$root/usr/bin/sightline"

share="$root/usr/share"
install -D -m 644 "$repo/assets/linux/sightline.desktop" "$share/applications/sightline.desktop"
install -D -m 644 "$repo/assets/linux/sightline.xml" "$share/mime/packages/sightline.xml"
install -D -m 644 "$repo/assets/linux/sightline.svg" "$share/icons/hicolor/scalable/apps/sightline.svg"

install -d "$share/man/man1"
"$self" man "$share/man/man1"
gzip -9n "$share/man/man1/"*.1

install -d "$share/bash-completion/completions" "$share/zsh/vendor-completions" \
    "$share/fish/vendor_completions.d"
"$self" completions bash >"$share/bash-completion/completions/sightline"
"$self" completions zsh >"$share/zsh/vendor-completions/_sightline"
"$self" completions fish >"$share/fish/vendor_completions.d/sightline.fish"

install -d "$share/doc/sightline"
cat >"$share/doc/sightline/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: sightline
License: MIT OR Apache-2.0

Files: *
License: MIT OR Apache-2.0
EOF
find "$root/usr" -type f -exec chmod 644 {} + && chmod 755 "$root/usr/bin/sightline"
find "$root/usr" -type d -exec chmod 755 {} +

# The shared libraries the binary links (libc, libgcc), as dpkg-shlibdeps finds them.
depends="libc6"
if command -v dpkg-shlibdeps >/dev/null; then
    work=$(mktemp -d)
    mkdir -p "$work/debian"
    printf 'Source: sightline\n\nPackage: sightline\nArchitecture: any\n' >"$work/debian/control"
    if found=$(cd "$work" && dpkg-shlibdeps -O "$self" 2>/dev/null); then
        depends=${found#shlibs:Depends=}
    fi
    rm -rf "$work"
fi

cat >"$root/DEBIAN/control" <<EOF
Package: sightline
Version: $version
Architecture: $arch
Maintainer: Sightline developers <sightline@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: xdg-utils
Section: devel
Priority: optional
Description: makes the Model Context Protocol visible
 Sightline records every message between a host, its model and its MCP
 servers, byte for byte, and draws it as a sequence diagram: a desktop
 app, a browser viewer and a command line for workshops and debugging.
EOF

mkdir -p "$out"
deb="$out/sightline_${version}_${arch}.deb"
compress=(-Zxz -z6)
[ "${SIGHTLINE_DEB_FAST:-}" = 1 ] && compress=(-Zzstd -z1)
dpkg-deb --root-owner-group "${compress[@]}" --build "$root" "$deb" >/dev/null
echo "$deb"
