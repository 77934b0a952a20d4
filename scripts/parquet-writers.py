#!/usr/bin/env python3
"""What established Parquet writers take to write rows that are already in memory.

Usage: parquet-writers.py VALUES_DIR [ROUNDS]

Reads the `values` rows pcp2parquet exported under VALUES_DIR into memory (their
own columns, not the Hive partition keys), then times, best of ROUNDS (default 5),
writing them again as one Parquet file with zstd:

  arrow       Arrow C++ (pyarrow.parquet.write_table), zstd level 6 as pcp2parquet's
  arrow-none  the same, its pages not compressed
  duckdb      DuckDB's COPY ... (FORMAT parquet, COMPRESSION zstd), on every core

Arrow is given the name columns as dictionaries (as pcp2parquet holds them: each
name once, an index a row), which is its fastest way.

Neither decodes or parses anything: the time is the writing alone, a floor for
any export that ends in these rows. Prints one line a writer: name, seconds, bytes.
A writer whose module is not installed is left out with a line on stderr (both
come with the conformance suite's engines: pip install -r
conformance/requirements-engines.txt; datafusion brings pyarrow).
"""

import glob
import os
import sys
import tempfile
import time


def best(rounds, write, path):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        write()
        times.append(time.perf_counter() - start)
    return min(times), os.path.getsize(path)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: parquet-writers.py VALUES_DIR [ROUNDS]")
    files = sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.parquet"), recursive=True))
    if not files:
        sys.exit(f"parquet-writers.py: no Parquet files under {sys.argv[1]}")
    rounds = int(sys.argv[2]) if len(sys.argv) == 3 else 5
    with tempfile.TemporaryDirectory(prefix="parquet-writers.") as out:
        writers(files, rounds, out)


def writers(files, rounds, out):
    """Times each writer installed, writing into directory `out`."""
    try:
        import pyarrow.parquet as pq
    except ImportError as e:
        print(f"parquet-writers.py: arrow left out ({e})", file=sys.stderr)
    else:
        names = ["metric", "instance", "pmid", "value_text"]
        table = pq.ParquetDataset(files, partitioning=None, read_dictionary=names).read()
        path = os.path.join(out, "arrow.parquet")
        for name, how in (("arrow", {"compression": "zstd", "compression_level": 6}),
                          ("arrow-none", {"compression": "none"})):
            secs, size = best(rounds, lambda: pq.write_table(table, path, **how), path)
            print(f"{name} {secs:.3f} {size}")
    try:
        import duckdb
    except ImportError as e:
        print(f"parquet-writers.py: duckdb left out ({e})", file=sys.stderr)
    else:
        con = duckdb.connect()
        con.execute(f"SET threads = {os.cpu_count()}")
        con.execute(
            "CREATE TABLE t AS SELECT * FROM read_parquet(?, hive_partitioning = false)",
            [files],
        )
        path = os.path.join(out, "duckdb.parquet")
        secs, size = best(
            rounds,
            lambda: con.execute(f"COPY t TO '{path}' (FORMAT parquet, COMPRESSION zstd)"),
            path,
        )
        print(f"duckdb {secs:.3f} {size}")


if __name__ == "__main__":
    main()
