#!/usr/bin/env python3
"""The code's shape: long functions and long files in the workspace's sources.

Counts, for every non-test function under crates/*/src, the lines from its `fn` line
to its closing brace, and for every source file the lines before its `#[cfg(test)]`
module. Test code (`#[cfg(test)]` modules, `tests/`, `benches/`, `examples/`) is not
counted. Strings, chars and comments are skipped when matching braces.

    scripts/code-shape.py            the report
    scripts/code-shape.py --check    exit 1 unless the limits hold
"""
import re
import sys
from pathlib import Path

FN_LIMIT = 150  # no function over this
LONG = 100  # at most MAX_LONG functions over this
MAX_LONG = 5
FILE_LIMIT = 1000  # lines before the tests

FN_RE = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)")


def strip_code(text):
    """The text with strings, chars and comments blanked (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^'\\])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:  # a lifetime
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def test_module_start(lines):
    """Index of the line of `#[cfg(test)]` that opens the tests module, or len(lines)."""
    for k, line in enumerate(lines):
        if line.strip() == "#[cfg(test)]":
            for nxt in lines[k + 1:k + 3]:
                if re.match(r"\s*mod\s+\w+", nxt):
                    return k
    return len(lines)


def functions(path):
    text = path.read_text()
    code = strip_code(text).split("\n")
    end = test_module_start(code)
    found = []
    for k in range(end):
        m = FN_RE.match(code[k])
        if not m:
            continue
        depth, opened = 0, False
        for j in range(k, end):
            for ch in code[j]:
                if ch == "{":
                    depth, opened = depth + 1, True
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and not opened and depth == 0:
                    break  # a declaration without a body
            else:
                if opened and depth == 0:
                    found.append((m.group(7), k + 1, j - k + 1))
                    break
                continue
            break
    return found, end


def main():
    root = Path(__file__).resolve().parent.parent
    files = sorted(p for p in root.glob("crates/*/src/**/*.rs"))
    fns, big_files = [], []
    for p in files:
        found, end = functions(p)
        rel = p.relative_to(root)
        fns += [(n, str(rel), line, length) for n, line, length in found]
        if end > FILE_LIMIT:
            big_files.append((str(rel), end))
    fns.sort(key=lambda f: -f[3])
    over = [f for f in fns if f[3] > FN_LIMIT]
    long = [f for f in fns if f[3] > LONG]
    print(f"{len(fns)} functions in {len(files)} files; {len(long)} over {LONG} lines, {len(over)} over {FN_LIMIT}; "
          f"{len(big_files)} files over {FILE_LIMIT} lines before their tests")
    for name, rel, line, length in long:
        print(f"  {length:4} {rel}:{line} {name}")
    for rel, n in big_files:
        print(f"  file {n:5} {rel}")
    if "--check" in sys.argv:
        ok = not over and len(long) <= MAX_LONG and not big_files
        print("limits hold" if ok else "limits do not hold")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
