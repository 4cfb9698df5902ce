"""Benchmark helper of scripts/bench.sh (BENCH_PYTHON): times
``rsmreport.build`` (or ``rsmreport.classify``) from a pandas DataFrame
already in memory, in a fresh process, and prints one JSON line:

    {"build_s": ..., "table_ms": ..., "peak_mb": ..., "base_mb": ...,
     "arrow_mb": ..., "rows": ...}

``build_s`` is the call's wall time; ``peak_mb`` the process's peak RSS
(``ru_maxrss``) after the call; ``base_mb`` the peak RSS before it (the
interpreter, pandas and the DataFrame); ``arrow_mb`` the size of the
DataFrame's Arrow buffers (what the issue lets the module add to the
command's peak); ``table_ms`` the time of one small table afterwards
(``eval`` of a build, ``classification_summary`` of a classify run).

    python scripts/bench_python.py EXP.toml DATA.parquet OUT_DIR [build|classify]
"""

from __future__ import annotations

import json
import resource
import sys
import time

import pandas as pd
import pyarrow as pa

import rsmreport


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    config, data, out = sys.argv[1:4]
    kind = sys.argv[4] if len(sys.argv) > 4 else "build"
    run, small = {
        "build": (rsmreport.build, "eval"),
        "classify": (rsmreport.classify, "classification_summary"),
    }[kind]
    df = pd.read_parquet(data)
    base = peak_mb()
    start = time.perf_counter()
    r = run(config, predictions=df, output_dir=out, overwrite=True)
    build_s = time.perf_counter() - start
    peak = peak_mb()
    start = time.perf_counter()
    table = r.tables[small]
    table_ms = (time.perf_counter() - start) * 1e3
    # Measured last: the conversion makes a copy, which must not count in
    # the peak above.
    arrow_mb = pa.Table.from_pandas(df, preserve_index=False).nbytes / 2**20
    print(json.dumps({
        "build_s": round(build_s, 3),
        "table_ms": round(table_ms, 1),
        "peak_mb": round(peak),
        "base_mb": round(base),
        "arrow_mb": round(arrow_mb),
        "rows": len(df),
        "eval_rows": len(table),
    }))


if __name__ == "__main__":
    main()
