#!/usr/bin/env python3
"""tools/bench/bench_python_arrays.py: what the in-memory functions of the Python package pay around the
run itself (docs/python.md "In memory", docs/benchmarks.md "Python in-memory round trip").

For each size: terrazo.cost_distance_array(friction) against terrazo.cost_distance on the same
cells already on disk as an uncompressed GeoTIFF (what the CLI would read), both with a backlink;
the difference is the array's hand-over, the outputs' read-back and the conversions. The parts
alone: the hand-over (the VRT over the array, no copy), the read-back of the two outputs straight
into arrays (read_array), and for comparison what the former round trip paid for them: the array
written as an uncompressed GeoTIFF (write_raster) and the outputs read through doubles
(read_raster). Prints one line per size and a JSON line per size.

    PYTHONPATH=build/python /usr/bin/python3 tools/bench/bench_python_arrays.py [--sizes 1024,2048] [--repeat 3]
"""

import argparse
import json
import os
import resource
import tempfile
import time

import numpy as np

import terrazo
from terrazo import _arrays, _native


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
            # The parts alone: the hand-over and the read-back, and the former round trip's.
            vrt = os.path.join(tmp, "friction.vrt")
            hand_over = best_of(args.repeat, lambda: _arrays._Grid(friction, None, "friction").write(vrt))
            cost_path, back_path = os.path.join(tmp, "c.tif"), os.path.join(tmp, "b.tif")
            read = best_of(args.repeat, lambda: (_native.read_array(cost_path), _native.read_array(back_path, "uint8",
                                                                                                   255.0)))
            write_geotiff = best_of(args.repeat, lambda: _native.write_raster(path, friction, "Float32"))
            read_generic = best_of(args.repeat, lambda: (_native.read_raster(cost_path),
                                                         _native.read_raster(back_path, "uint8", 255.0)))
        record = {"cells": n * n, "files_s": round(files, 3), "arrays_s": round(arrays, 3),
                  "overhead_s": round(arrays - files, 3), "ratio": round(arrays / files, 3),
                  "hand_over_s": round(hand_over, 6), "read_s": round(read, 3),
                  "former_write_s": round(write_geotiff, 3), "former_read_s": round(read_generic, 3),
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
        print("%d x %d: files %.3f s, arrays %.3f s, difference %.3f s (x%.2f); hand-over %.6f s, read back %.3f s "
              "(former: GeoTIFF write %.3f s, read through doubles %.3f s)" %
              (n, n, files, arrays, arrays - files, arrays / files, hand_over, read, write_geotiff, read_generic))
        print(json.dumps(record))


if __name__ == "__main__":
    main()
