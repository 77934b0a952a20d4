#!/usr/bin/env python3
"""Man pages (man/*.1) and shell completions (completions/: bash, zsh, fish) for
the tools, made from what each tool's --help prints (PCP's usage, then the
options that are ours), so that they and the tool cannot disagree.
pcp2parquet's come from its clap definition (--man, --completions).

Usage: scripts/gen-man.py [--check]   (after `cargo build --release`)
  --check: exit 1 if a committed file differs from what the tools print now.
Install them with scripts/install-extras.sh.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release")
MAN = os.path.join(ROOT, "man")

# what each tool is for: the NAME line and a DESCRIPTION paragraph
TOOLS = {
    "pmdumplog": "dump internal details of a performance metrics archive",
    "pmval": "arbitrary performance metrics value dumper (archives)",
    "pmlogextract": "reduce, extract, concatenate and merge performance metrics archives",
    "pmlogcheck": "checks for invalid data in a PCP archive, and repairs torn ones",
    "pmlc": "configure active pmloggers interactively",
    "pmlogger": "create archive of performance metrics",
}


def esc(s):
    """Text for roff: backslashes and leading dots or quotes made harmless."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    if s.startswith((".", "'")):
        s = "\\&" + s
    return s


def page(tool, what, help_text):
    lines = help_text.rstrip("\n").split("\n")
    usage = lines[0].removeprefix("Usage: ").strip()
    out = [
        f'.TH {tool.upper()} 1 "" "pcp-archive-rs" "User Commands"',
        ".SH NAME",
        f"{tool} \\- {esc(what)}",
        ".SH SYNOPSIS",
        f".B {tool}",
        esc(usage.removeprefix(tool).strip()),
        ".SH DESCRIPTION",
        f"This {tool} is the one of pcp-archive-rs, a Rust replacement for the archive",
        "tools of Performance Co-Pilot that follows PCP 6.0.3: the same options,",
        "output and exit status as PCP's, which its conformance suite measures.",
        f"PCP's own page, {tool}(1), describes each option at length.",
    ]
    section = None
    opt = None
    for line in lines[1:]:
        if not line.strip():
            continue
        m = re.match(r"^(\S.*):$", line)
        if m:
            section = m.group(1)
            out.append(f".SH {esc(section.upper())}")
            continue
        m = re.match(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$", line)
        if m:
            opt = m.group(1)
            out.append(".TP")
            out.append(f".B {esc(opt)}")
            if m.group(2):
                out.append(esc(m.group(2)))
            continue
        out.append(esc(line.strip()))
    out += [
        ".SH SEE ALSO",
        f"PCP's {tool}(1), pcp2parquet(1), LOGARCHIVE(5)",
        "",
    ]
    return "\n".join(out)


def options(help_text):
    """(short, long, takes an argument, what) of each option the help lists."""
    found = []
    lines = help_text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$", line)
        if not m:
            continue
        what = m.group(2)
        if what is None and i + 1 < len(lines) and lines[i + 1].startswith("    "):
            what = lines[i + 1].strip()
        short = re.search(r"(?:^|\s)-([^-\s,])", m.group(1))
        long = re.search(r"--([\w-]+)", m.group(1))
        arg = bool(re.search(r"[ =][A-Z]", m.group(1)))
        found.append((short and short.group(1), long and long.group(1), arg, what or ""))
    return found


def completions(helps):
    """The bash, zsh and fish completion scripts of the tools whose --help is given."""
    tools = sorted(helps)
    bash = ["# bash completion for pcp-archive-rs (made by scripts/gen-man.py): options,",
            "# then files (archives, configurations)",
            "_pcp_archive_rs() {",
            '    local cur=${COMP_WORDS[COMP_CWORD]} opts=""',
            '    case ${COMP_WORDS[0]##*/} in']
    zsh = ["#compdef " + " ".join(tools),
           "# zsh completion for pcp-archive-rs (made by scripts/gen-man.py)",
           "case $service in"]
    fish = ["# fish completion for pcp-archive-rs (made by scripts/gen-man.py)"]
    for tool in tools:
        opts = []
        seen = set()
        for o in options(helps[tool]):
            if (o[0], o[1]) not in seen and (o[0] is None or f"-{o[0]}" not in {f"-{x[0]}" for x in opts}):
                seen.add((o[0], o[1]))
                opts.append(o)
        words = []
        zargs = []
        for short, long, arg, what in opts:
            what_z = what.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")
            for name in ([f"-{short}"] if short and short != "?" else []) + ([f"--{long}"] if long else []):
                words.append(name)
                zargs.append(f"'{name}[{what_z}]" + (":value:'" if arg else "'"))
            line = f"complete -c {tool}"
            if short and short != "?":
                line += f" -s {short}"
            if long:
                line += f" -l {long}"
            if arg:
                line += " -r"
            what_f = what.replace("'", "\\'")
            fish.append(line + f" -d '{what_f}'")
        bash.append(f'        {tool}) opts="{" ".join(words)}" ;;')
        zsh.append(f"  {tool}) _arguments -s \\")
        for a in zargs:
            zsh.append(f"      {a} \\")
        zsh.append("      '*:file:_files' ;;")
    bash += ["    esac",
             '    if [[ $cur == -* ]]; then',
             '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
             "    else",
             '        COMPREPLY=($(compgen -f -- "$cur"))',
             "    fi",
             "}",
             "complete -F _pcp_archive_rs " + " ".join(tools),
             ""]
    zsh += ["esac", ""]
    fish.append("")
    return {"pcp-archive-rs.bash": "\n".join(bash), "_pcp-archive-rs": "\n".join(zsh),
            "pcp-archive-rs.fish": "\n".join(fish)}


def main():
    check = "--check" in sys.argv[1:]
    os.makedirs(MAN, exist_ok=True)
    stale = []
    pages = {}
    helps = {}
    for tool, what in TOOLS.items():
        r = subprocess.run([os.path.join(BIN, tool), "--help"], capture_output=True, text=True)
        helps[tool] = r.stderr or r.stdout
        pages[os.path.join(MAN, f"{tool}.1")] = page(tool, what, helps[tool])
    p2p = os.path.join(BIN, "pcp2parquet")
    r = subprocess.run([p2p, "--man"], capture_output=True, text=True)
    pages[os.path.join(MAN, "pcp2parquet.1")] = r.stdout
    comp = os.path.join(ROOT, "completions")
    os.makedirs(comp, exist_ok=True)
    for name, text in completions(helps).items():
        pages[os.path.join(comp, name)] = text
    for shell, name in (("bash", "pcp2parquet.bash"), ("zsh", "_pcp2parquet"), ("fish", "pcp2parquet.fish")):
        r = subprocess.run([p2p, "--completions", shell], capture_output=True, text=True)
        pages[os.path.join(comp, name)] = r.stdout
    for path, text in pages.items():
        name = os.path.relpath(path, ROOT)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(name)
            if not check:
                with open(path, "w") as f:
                    f.write(text)
    if check and stale:
        print("man pages or completions out of date (run scripts/gen-man.py): " + " ".join(stale))
        return 1
    print(f"man pages and completions: {len(pages)} files ({'checked' if check else 'written'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
