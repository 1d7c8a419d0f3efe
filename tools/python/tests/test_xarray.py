"""xarray DataArrays in and out (skipped, and reported so, when xarray or rioxarray is absent)."""

import numpy as np
import pytest

import terrazo

xarray = pytest.importorskip("xarray")


def data_array(values, x0=500000.0, y0=4100000.0, cell=30.0):
    h, w = values.shape
    xs = x0 + cell * (np.arange(w) + 0.5)
    ys = y0 - cell * (np.arange(h) + 0.5)
    return xarray.DataArray(values, coords={"y": ys, "x": xs}, dims=("y", "x"), attrs={"units": "m"})


def test_data_array_in_and_out_with_coordinates():
    values = np.random.default_rng(1).uniform(1, 5, size=(20, 30))
    da = data_array(values)
    cost, back = terrazo.cost_distance_array(da, [(3, 4)])
    plain, plain_back = terrazo.cost_distance_array(values, [(3, 4)])
    assert isinstance(cost, xarray.DataArray) and isinstance(back, xarray.DataArray)
    assert cost.dims == ("y", "x") and cost.name == "cost"
    np.testing.assert_array_equal(cost.coords["x"].values, da.coords["x"].values)
    np.testing.assert_array_equal(cost.coords["y"].values, da.coords["y"].values)
    np.testing.assert_array_equal(cost.values, plain)
    np.testing.assert_array_equal(back.values, plain_back)


def test_map_coordinate_sources_from_coordinates():
    values = np.ones((10, 10))
    da = data_array(values)
    x, y = float(da.x[7]), float(da.y[2])
    cost, _ = terrazo.cost_distance_array(da, [(x, y)], map_coords=True)
    assert float(cost[2, 7]) == 0.0


def test_crs_is_kept_with_rioxarray():
    pytest.importorskip("rioxarray")
    values = np.random.default_rng(2).integers(0, 3, size=(16, 16)).astype(np.int32)
    da = data_array(values).rio.write_crs("EPSG:32611")
    labels = terrazo.clump_array(da)
    assert labels.rio.crs is not None and labels.rio.crs.to_epsg() == 32611
    assert labels.rio.transform() == da.rio.transform()
    edges = terrazo.mst_array(da)
    assert edges.rio.crs.to_epsg() == 32611
