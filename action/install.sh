#!/usr/bin/env bash
# Installs oma-mcp $OMA_MCP_VERSION into $OMA_MCP_INSTALL_DIR (default $RUNNER_TEMP/oma-mcp)
# and puts its bin/ on the job's PATH ($GITHUB_PATH): from the release archive for the
# runner's platform, its SHA-256 checked against the release's .sha256 file; where the
# release has no archive for the platform, with `cargo install --locked oma-mcp-cli`. An
# install that is already there (a restored cache) is kept.
#
# Environment: OMA_MCP_VERSION (required); OMA_MCP_RELEASE_BASE (default: the project's
# GitHub releases; any URL curl reads, also file://); OMA_MCP_INSTALL_DIR; GITHUB_PATH.
set -euo pipefail

version="${OMA_MCP_VERSION:?set OMA_MCP_VERSION to the oma-mcp version to install}"
base="${OMA_MCP_RELEASE_BASE:-https://github.com/oma-mcp/oma-mcp/releases/download}"
dest="${OMA_MCP_INSTALL_DIR:-${RUNNER_TEMP:-/tmp}/oma-mcp}"
bin="$dest/bin"

done_at() {
  echo "$1" >> "${GITHUB_PATH:-/dev/null}"
  echo "oma-mcp $version: $2"
}

if [[ -x "$bin/oma-mcp" ]] && [[ "$("$bin/oma-mcp" --version)" == "oma-mcp $version" ]]; then
  done_at "$bin" "already installed in $bin"
  exit 0
fi

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-gnu ;;
  Linux-aarch64 | Linux-arm64) target=aarch64-unknown-linux-gnu ;;
  Darwin-arm64) target=aarch64-apple-darwin ;;
  Darwin-x86_64) target=x86_64-apple-darwin ;;
  *) target="" ;;
esac

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
archive="oma-mcp-cli-$target.tar.xz"
url="$base/v$version/$archive"

if [[ -n "$target" ]] && curl --fail --silent --show-error --location --output "$work/$archive" "$url" 2> "$work/curl.err"; then
  if ! curl --fail --silent --show-error --location --output "$work/$archive.sha256" "$url.sha256"; then
    echo "::error title=oma-mcp install::$url.sha256 cannot be read; refusing an archive whose checksum cannot be checked"
    exit 1
  fi
  expected="$(cut -d ' ' -f 1 < "$work/$archive.sha256")"
  if command -v sha256sum > /dev/null; then
    actual="$(sha256sum "$work/$archive" | cut -d ' ' -f 1)"
  else
    actual="$(shasum -a 256 "$work/$archive" | cut -d ' ' -f 1)"
  fi
  if [[ "$actual" != "$expected" ]]; then
    echo "::error title=oma-mcp install::the SHA-256 of $archive is $actual, but the release says $expected; not installing it"
    exit 1
  fi
  tar -xJf "$work/$archive" -C "$work"
  mkdir -p "$bin"
  cp "$work/oma-mcp-cli-$target/oma-mcp" "$bin/oma-mcp"
  chmod +x "$bin/oma-mcp"
  done_at "$bin" "installed from $archive (SHA-256 $actual)"
  exit 0
fi

# No archive for this platform (or this version has none): build it.
echo "::notice title=oma-mcp install::no release archive for ${target:-$(uname -s)-$(uname -m)} at $url; building with cargo install (several minutes; the next run restores it from the cache)"
cargo install --locked oma-mcp-cli --version "$version" --root "$dest"
done_at "$bin" "built with cargo install into $dest"
