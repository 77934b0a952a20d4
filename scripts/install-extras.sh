#!/usr/bin/env bash
# Installs the man pages (man/*.1) and the bash, zsh and fish completions
# (completions/) under PREFIX (default ~/.local), where man, bash-completion, zsh
# and fish look for them. The files are made by scripts/gen-man.py from the tools'
# own --help (CI checks they are current).
# Usage: scripts/install-extras.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-$HOME/.local}
install -d "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 0644 man/*.1 "$prefix/share/man/man1/"
# bash-completion loads a command's file by the command's name
for t in pmdumplog pmval pmlogextract pmlogcheck pmlc pmlogger; do
  install -m 0644 completions/pcp-archive-rs.bash "$prefix/share/bash-completion/completions/$t"
  install -m 0644 completions/pcp-archive-rs.fish "$prefix/share/fish/vendor_completions.d/$t.fish"
done
install -m 0644 completions/pcp2parquet.bash "$prefix/share/bash-completion/completions/pcp2parquet"
install -m 0644 completions/pcp2parquet.fish "$prefix/share/fish/vendor_completions.d/pcp2parquet.fish"
install -m 0644 completions/_pcp-archive-rs completions/_pcp2parquet "$prefix/share/zsh/site-functions/"
echo "installed man pages and completions under $prefix"
