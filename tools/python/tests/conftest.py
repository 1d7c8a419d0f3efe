"""Shared fixtures of terrazo's pytest suite (tools/python/tests/, docs/python.md "Tests").

ctest runs each case with PYTHONPATH=build/python, TERRAZO_BINARY (the terrazo program, to compare
with) and TERRAZO_DATASETS (the repository's datasets/) set: tools/python/CMakeLists.txt.
"""

import json
import os
import subprocess

import numpy as np
import pytest

import terrazo
from terrazo import _native

HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.environ.get("TERRAZO_DATASETS", os.path.join(HERE, "..", "..", "..", "datasets"))
BINARY = os.environ.get("TERRAZO_BINARY", os.path.join(HERE, "..", "..", "..", "build", "terrazo"))


def dataset(name):
    return os.path.join(DATASETS, name)


class Cli:
    """The terrazo program, for results to compare with."""

    def __init__(self, binary):
        self.binary = binary

    def run(self, *args, check=True):
        done = subprocess.run([self.binary] + [str(a) for a in args], capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError("terrazo %s failed (%d): %s" % (" ".join(map(str, args)), done.returncode,
                                                                 done.stderr))
        return done

    def json(self, *args):
        """Runs with --json -q; returns the summary dict."""
        done = self.run(*args[:1], "--json", "-q", *args[1:])
        return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="session")
def cli():
    if not os.access(BINARY, os.X_OK):
        pytest.fail("the terrazo program is not at %s (set TERRAZO_BINARY)" % BINARY)
    return Cli(BINARY)


def read(path):
    """(cells as float64 with NaN nodata, description) of a raster, through terrazo's reader."""
    return _native.read_raster(str(path))


def assert_same_raster(a, b):
    """Two rasters hold the same cells bit for bit (NaN where nodata) and the same description."""
    cells_a, info_a = read(a)
    cells_b, info_b = read(b)
    assert info_a == info_b
    assert cells_a.shape == cells_b.shape
    assert np.array_equal(np.isnan(cells_a), np.isnan(cells_b))
    valid = ~np.isnan(cells_a)
    assert np.array_equal(cells_a[valid].view(np.uint64), cells_b[valid].view(np.uint64))


# Keys of a --json summary that measure the run rather than its result.
MEASURED = {"seconds", "phases", "peak_rss_bytes", "bytes_read", "bytes_written", "scratch_bytes",
            "memory_peak_reserved_bytes", "input", "output", "backlink", "allocation", "cost", "mask",
            "edge_list", "stats", "resident", "cache_evictions", "path", "buffer_bytes"}


def result_keys(summary):
    return {k: v for k, v in summary.items() if k not in MEASURED}


def assert_same_summary(python_summary, cli_summary):
    assert set(python_summary) == set(cli_summary)
    assert result_keys(python_summary) == result_keys(cli_summary)


def outputs_left(directory):
    """Files in `directory`, partial files included (a cancelled run must leave none)."""
    return sorted(os.listdir(directory))
