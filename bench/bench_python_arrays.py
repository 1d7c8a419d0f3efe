#!/usr/bin/env python3
"""bench/bench_python_arrays.py: what the in-memory functions of the Python package pay for their
round trip through a temporary GeoTIFF (docs/python.md "In memory", docs/benchmarks.md "Python
in-memory round trip").

For each size: terrazo.cost_distance_array(friction) against terrazo.cost_distance on the same
cells already on disk as an uncompressed GeoTIFF (what the CLI would read), both with a backlink;
the difference is the array's write, the outputs' read-back and the conversions. Prints one line
per size and a JSON line per size.

    PYTHONPATH=build/python /usr/bin/python3 bench/bench_python_arrays.py [--sizes 1024,2048] [--repeat 3]
"""

import argparse
import json
import os
import resource
import tempfile
import time

import numpy as np

import terrazo
from terrazo import _native


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    for n in [int(s) for s in args.sizes.split(",")]:
        friction = np.random.default_rng(n).uniform(1, 10, size=(n, n)).astype(np.float32)
        sources = [(n // 2, n // 2)]
        with tempfile.TemporaryDirectory(prefix="terrazo-bench-") as tmp:
            path = os.path.join(tmp, "friction.tif")
            _native.write_raster(path, friction.astype(np.float64), "Float32")
            files = best_of(args.repeat, lambda: terrazo.cost_distance(
                path, os.path.join(tmp, "c.tif"), sources=sources, backlink=os.path.join(tmp, "b.tif"),
                threads=args.threads, co={"COMPRESS": "NONE"}))
            arrays = best_of(args.repeat, lambda: terrazo.cost_distance_array(friction, sources,
                                                                              threads=args.threads))
            # The round trip's own parts, alone: the array written, the two outputs read back.
            write = best_of(args.repeat, lambda: _native.write_raster(path, friction, "Float32"))
            read = best_of(args.repeat, lambda: (_native.read_raster(os.path.join(tmp, "c.tif")),
                                                 _native.read_raster(os.path.join(tmp, "b.tif"), "uint8", 255.0)))
        record = {"cells": n * n, "files_s": round(files, 3), "arrays_s": round(arrays, 3),
                  "overhead_s": round(arrays - files, 3), "ratio": round(arrays / files, 3),
                  "write_s": round(write, 3), "read_s": round(read, 3),
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
        print("%d x %d: files %.3f s, arrays %.3f s, difference %.3f s (x%.2f); write %.3f s, read back %.3f s" %
              (n, n, files, arrays, arrays - files, arrays / files, write, read))
        print(json.dumps(record))


if __name__ == "__main__":
    main()
