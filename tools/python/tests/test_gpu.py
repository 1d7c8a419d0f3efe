"""device="cuda" gives the CPU's results bit for bit through the Python package (label gpu: skipped,
and reported so, without a CUDA device)."""

import numpy as np
import pytest

import terrazo
from conftest import assert_same_raster, dataset

DEVICE = terrazo.cuda_device()
pytestmark = pytest.mark.skipif(not DEVICE["available"], reason=DEVICE["reason"])
DEM = dataset("real/pysheds_dem.tif")


def test_cost_distance_cuda_equals_cpu(tmp_path):
    for device in ("cpu", "cuda"):
        summary = terrazo.cost_distance(DEM, tmp_path / (device + ".tif"), sources=[(180, 180), (10, 300)],
                                        device=device, tile=64)
        assert summary["device"].startswith(device)
    assert_same_raster(tmp_path / "cpu.tif", tmp_path / "cuda.tif")


def test_resident_exchange_equals_cpu(tmp_path):
    friction = np.random.default_rng(9).uniform(1, 10, size=(700, 900))
    friction[np.random.default_rng(10).random(friction.shape) < 0.05] = np.nan
    friction[350, 450] = 1.0
    path = str(tmp_path / "f.tif")
    terrazo._native.write_raster(path, friction, "Float64")
    cpu = terrazo.cost_distance(path, tmp_path / "cpu.tif", sources=[(450, 350)], device="cpu")
    gpu = terrazo.cost_distance(path, tmp_path / "gpu.tif", sources=[(450, 350)], device="cuda", exchange="resident")
    assert gpu["exchange"] == "resident" and cpu["reached_cells"] == gpu["reached_cells"]
    assert_same_raster(tmp_path / "cpu.tif", tmp_path / "gpu.tif")
    # The in-memory function without backlinks may take the resident exchange too (device auto).
    cost, back = terrazo.cost_distance_array(friction, [(450, 350)], backlink=False, device="cuda")
    assert back is None
    cpu_cost, _ = terrazo.cost_distance_array(friction, [(450, 350)], device="cpu")
    np.testing.assert_array_equal(cost, cpu_cost)


def test_mst_cuda_equals_cpu(tmp_path):
    cpu = terrazo.mst(DEM, tmp_path / "cpu.tif", device="cpu", merge="cpu")
    gpu = terrazo.mst(DEM, tmp_path / "gpu.tif", device="cuda", merge="cuda")
    assert cpu["total_weight"] == gpu["total_weight"] and cpu["edges"] == gpu["edges"]
    assert_same_raster(tmp_path / "cpu.tif", tmp_path / "gpu.tif")
