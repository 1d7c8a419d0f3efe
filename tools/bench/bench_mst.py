#!/usr/bin/python3
"""tools/bench/bench_mst.py: `terrazo mst` against SciPy's minimum_spanning_tree on the same input, in one run.

Both solve the same problem exactly: the grid graph of the raster's valid cells (8- or 4-connected),
fixed-point weights computed like kernels/common/edge_weight.h with the scale and offset terrazo reports, and
the total order of docs/mst.md (weight, min id, max id) imposed on SciPy by giving each edge its rank in that
order as its SciPy weight (distinct weights, so SciPy's forest is THE forest). The script checks that
both forests have the same edge count and the same total fixed-point weight, and prints wall time,
cells per second and peak RSS of each, and the ratio. The ratio is of whole processes as a user
runs them: terrazo's command (reading the input, writing the edge raster) against the SciPy child
process (Python start-up and imports, reading the raster, building the graph, the MST); the
in-process seconds of each are printed beside. --repeat N runs both N times in turn (paired) and
reports the best and the worst wall time of each and the ratio of the best.

SciPy holds the whole graph in memory (about 60 bytes per edge while building it), so give it inputs
of up to a few tens of millions of cells; --skip-scipy runs terrazo alone (any size).

Usage:
  tools/bench/bench_mst.py [--terrazo BIN] [--memory 1G] [--weight max] [--connectivity 8] [--threads N]
                     [--device cpu|cuda|cpu,cuda] [--repeat N]
                     [--skip-scipy] [--tmpdir DIR] INPUT [INPUT ...]
INPUT: any raster GDAL reads, or a terrazo tile store (.tzs), which SciPy's side reads with numpy alone
(that is how it runs on the GPU machine, whose Python has SciPy but no GDAL).
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def children_cpu():
    """User + system seconds of the finished child processes so far (all their threads)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_terrazo(args, path, workdir, device):
    out = os.path.join(workdir, "edges.tif")
    cmd = [args.terrazo, "mst", "--json", "-q", "--memory", args.memory, "--weight", args.weight,
           "--connectivity", str(args.connectivity), "--tmpdir", workdir, "--device", device]
    if args.threads:
        cmd += ["--threads", str(args.threads)]
    cmd += [path, out]
    before = children_cpu()
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    cpu = children_cpu() - before
    if proc.returncode != 0:
        sys.exit(f"terrazo failed ({proc.returncode}): {proc.stderr.strip()}")
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    summary["wall_seconds"] = wall
    summary["cpu_seconds"] = cpu
    os.remove(out)
    return summary


def read_tzs(path):
    """A terrazo tile store (docs/tile_store_format.md) as float64 with NaN for nodata, in numpy alone
    (the GPU machine has no GDAL for Python)."""
    import struct
    with open(path, "rb") as f:
        head = f.read(16)
        if head[:8] != b"\x89TZS\r\n\x1a\n":
            sys.exit(f"{path}: not a terrazo tile store")
        (hlen,) = struct.unpack_from("<I", head, 12)
        h = f.read(hlen)
        w, hgt, t, ctype, flags = struct.unpack_from("<QQIII", h, 0)
        (nodata,) = struct.unpack_from("<d", h, 32)
        (index_offset,) = struct.unpack_from("<Q", h, 120)
        dtype = {1: "<u1", 2: "<i2", 3: "<u2", 4: "<i4", 5: "<u4", 6: "<f4", 7: "<f8"}[ctype]
        tiles_x, tiles_y = (w + t - 1) // t, (hgt + t - 1) // t
        f.seek(index_offset)
        index = np.frombuffer(f.read(16 * tiles_x * tiles_y), dtype="<u8").reshape(-1, 2)
        values = np.full((tiles_y * t, tiles_x * t), np.nan)
        tile_bytes = t * t * np.dtype(dtype).itemsize
        for i, (offset, _) in enumerate(index):
            if offset == 0:
                continue
            f.seek(int(offset))
            tile = np.frombuffer(f.read(tile_bytes), dtype=dtype).reshape(t, t).astype(np.float64)
            if flags & 1:
                if np.isnan(nodata):
                    held = np.nan
                elif dtype.endswith("f4") or dtype.endswith("f8"):
                    held = float(np.array(nodata).astype(dtype))  # Float32: as the type holds it
                elif float(nodata).is_integer() and np.iinfo(dtype).min <= nodata <= np.iinfo(dtype).max:
                    held = float(nodata)
                else:
                    held = np.nan  # io/store/cell_values.h: such an integer raster has no nodata cells
                if not np.isnan(held):
                    tile[tile == held] = np.nan
            ty, tx = divmod(i, tiles_x)
            values[ty * t:(ty + 1) * t, tx * t:(tx + 1) * t] = tile
    return values[:hgt, :w].copy()


def read_values(args, path, workdir):
    if path.endswith(".tzs"):
        return read_tzs(path)
    from osgeo import gdal
    gdal.UseExceptions()
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    values = band.ReadAsArray().astype(np.float64)
    nodata = band.GetNoDataValue()
    if nodata is not None and not np.isnan(nodata):
        values[values == nodata] = np.nan
    return values


def fixed_point(model, a, b, diagonal, scale, offset):
    """kernels/common/edge_weight.h, operation for operation (half away from zero)."""
    if model == "max":
        value = (np.maximum(a, b) - offset) * scale
    elif model == "absdiff":
        value = np.abs(a - b) * scale
    else:
        value = ((a + b) * 0.5) * (1.4142135623730951 if diagonal else 1.0) * scale
    whole = np.floor(value)
    return (whole + (value - whole >= 0.5)).astype(np.uint64)


def run_scipy(args, values, scale, offset):
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    start = time.monotonic()
    h, w = values.shape
    valid = ~np.isnan(values)
    ys, xs = np.mgrid[0:h, 0:w]
    gid = (ys.astype(np.int64) * w + xs).astype(np.int64)
    del ys, xs
    # Owned directions in rank order: E (0), SW (1), S (2), SE (3).
    shifts = [(0, 1, False, 0), (1, -1, True, 1), (1, 0, False, 2), (1, 1, True, 3)]
    weights, owners, others, ids4 = [], [], [], []
    for dy, dx, diagonal, rank in shifts:
        if args.connectivity == 4 and diagonal:
            continue
        ya, yb = slice(0, h - dy), slice(dy, h)
        xa, xb = (slice(0, w - dx), slice(dx, w)) if dx >= 0 else (slice(-dx, w), slice(0, w + dx))
        a, b = values[ya, xa], values[yb, xb]
        mask = valid[ya, xa] & valid[yb, xb]
        weights.append(fixed_point(args.weight, a[mask], b[mask], diagonal, scale, offset))
        owner = gid[ya, xa][mask]
        owners.append(owner)
        others.append(gid[yb, xb][mask])
        ids4.append(owner.astype(np.uint64) * np.uint64(4) + np.uint64(rank))
    weight = np.concatenate(weights)
    owner = np.concatenate(owners)
    other = np.concatenate(others)
    id4 = np.concatenate(ids4)
    del weights, owners, others, ids4
    order = np.lexsort((id4, weight))  # the total order of docs/mst.md
    del id4
    rank = np.empty(order.size, dtype=np.float64)
    rank[order] = np.arange(1, order.size + 1, dtype=np.float64)
    del order
    n = h * w
    graph = csr_matrix((rank, (owner, other)), shape=(n, n))
    built = time.monotonic()
    tree = minimum_spanning_tree(graph).tocoo()
    solved = time.monotonic()
    # Map the chosen ranks back to fixed-point weights.
    by_rank = np.empty(weight.size, dtype=np.uint64)
    by_rank[rank.astype(np.int64) - 1] = weight
    total = int(by_rank[tree.data.astype(np.int64) - 1].sum(dtype=np.uint64))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"edges": int(tree.nnz), "total_weight": total, "build_seconds": built - start,
            "mst_seconds": solved - built, "seconds": solved - start, "peak_rss_bytes": peak,
            "vertices": int(valid.sum())}


def run_scipy_child(args, path, workdir, t):
    """The SciPy side as its own process (so its peak RSS is this input's alone), timed whole."""
    child = [sys.executable, os.path.abspath(__file__), "--scipy-child", "--terrazo", args.terrazo,
             "--weight", args.weight, "--connectivity", str(args.connectivity),
             "--scale", repr(t["scale"]), "--offset", repr(t["offset"]), "--tmpdir", workdir, path]
    before = children_cpu()
    start = time.monotonic()
    proc = subprocess.run(child, stdout=subprocess.PIPE, text=True, check=True)
    wall = time.monotonic() - start
    s = json.loads(proc.stdout.strip().splitlines()[-1])
    s["wall_seconds"] = wall
    s["cpu_seconds"] = children_cpu() - before
    return s


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--terrazo", default=os.path.join(here, "..", "..", "build", "terrazo"))
    parser.add_argument("--memory", default="1G")
    parser.add_argument("--weight", default="max", choices=["max", "absdiff", "friction"])
    parser.add_argument("--connectivity", type=int, default=8, choices=[4, 8])
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--device", default="cpu",
                        help="terrazo's --device; a comma-separated list (e.g. cpu,cuda) runs each in turn")
    parser.add_argument("--skip-scipy", action="store_true")
    parser.add_argument("--repeat", type=int, default=1, help="paired runs of each; the best wall time counts")
    parser.add_argument("--tmpdir", default=None)
    parser.add_argument("--scipy-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)
    parser.add_argument("--offset", type=float, default=0.0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scipy_child:
        values = read_values(args, args.inputs[0], args.tmpdir)
        print(json.dumps(run_scipy(args, values, args.scale, args.offset)))
        return

    devices = args.device.split(",")
    head = ["input", "cells"]
    for d in devices:
        head += [f"terrazo {d} wall s, best (worst) [in-process: block-local / merge / expansion]",
                 f"terrazo {d} Mcells/s", f"terrazo {d} peak RSS MiB"]
    head += ["scipy process wall s, best (worst) [in-process: graph + mst]", "scipy Mcells/s", "scipy peak RSS MiB"]
    head += [f"scipy/terrazo {d} whole process, wall (CPU)" for d in devices] + ["same forest"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for path in args.inputs:
        with tempfile.TemporaryDirectory(dir=args.tmpdir) as workdir:
            repeats = max(1, args.repeat)
            tries = []   # per repeat: the terrazo runs, one per device
            scipy_runs = []
            for _ in range(repeats):
                tries.append([run_terrazo(args, path, workdir, d) for d in devices])
                if not args.skip_scipy:
                    scipy_runs.append(run_scipy_child(args, path, workdir, tries[0][0]))
            # The best (smallest wall) run of each device, and the worst wall for the spread.
            runs = [min((t[k] for t in tries), key=lambda r: r["wall_seconds"]) for k in range(len(devices))]
            worst = [max(t[k]["wall_seconds"] for t in tries) for k in range(len(devices))]
            t = runs[0]
            cells = t["width"] * t["height"]
            row = [os.path.basename(path), f"{cells:,}"]
            for r, w in zip(runs, worst):
                p = r["phases"]
                row += [f"{r['wall_seconds']:.2f} ({w:.2f}), CPU {r['cpu_seconds']:.2f} [{r['seconds']:.2f}: {p['block_local']:.2f} / "
                        f"{p['merge']:.2f} / {p['expansion']:.2f}]",
                        f"{cells / r['wall_seconds'] / 1e6:.1f}", f"{r['peak_rss_bytes'] / 2**20:.0f}"]
            agree = all(r["edges"] == t["edges"] and r["total_weight"] == t["total_weight"] for r in runs)
            if args.skip_scipy:
                row += ["-", "-", "-"] + ["-"] * len(runs)
                row += ["yes (terrazo devices agree)" if agree else "NO (terrazo devices differ)"]
            else:
                s = min(scipy_runs, key=lambda x: x["wall_seconds"])
                s_worst = max(x["wall_seconds"] for x in scipy_runs)
                same = agree and all(x["edges"] == t["edges"] and x["total_weight"] == t["total_weight"]
                                     for x in scipy_runs)
                row += [f"{s['wall_seconds']:.2f} ({s_worst:.2f}), CPU {s['cpu_seconds']:.2f} [{s['seconds']:.2f}: {s['build_seconds']:.2f} + "
                        f"{s['mst_seconds']:.2f}]",
                        f"{cells / s['wall_seconds'] / 1e6:.1f}", f"{s['peak_rss_bytes'] / 2**20:.0f}"]
                row += [f"{s['wall_seconds'] / r['wall_seconds']:.2f} ({s['cpu_seconds'] / r['cpu_seconds']:.2f})"
                        for r in runs]
                row += ["yes" if same else f"NO (edges {s['edges']} vs {[r['edges'] for r in runs]}, weight "
                                           f"{s['total_weight']} vs {[r['total_weight'] for r in runs]})"]
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
