#!/usr/bin/env bash
# Installs the man pages (man/*.1) and the bash, zsh and fish completions
# (completions/) under PREFIX (default ~/.local), where man, bash-completion, zsh
# and fish look for them. The files are made by `cargo run -p docgen` from each
# tool's one definition of its options (CI checks they are current).
# Usage: scripts/install-extras.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-$HOME/.local}
install -d "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0644 man/*.1 "$prefix/share/man/man1/"
# bash-completion loads a command's file by the command's name (every tool docgen
# made completions for)
for f in completions/*.bash; do
  t=$(basename "$f" .bash)
  install -m 0644 "completions/$t.bash" "$prefix/share/bash-completion/completions/$t"
  install -m 0644 "completions/$t.fish" "$prefix/share/fish/vendor_completions.d/$t.fish"
  install -m 0644 "completions/_$t" "$prefix/share/zsh/site-functions/"
done
echo "installed man pages and completions under $prefix"
