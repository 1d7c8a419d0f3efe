"""The in-memory functions: arrays in and out, the CLI's results bit for bit, nodata, layouts, dtypes."""

import math

import numpy as np
import pytest

import terrazo
from conftest import dataset, read

DTYPES = {"Byte": np.uint8, "Int16": np.int16, "UInt16": np.uint16, "Int32": np.int32, "UInt32": np.uint32,
          "Float32": np.float32, "Float64": np.float64}


def load(name):
    """A shipped DEM as an array of its own cell type, with its nodata value (NaN cells put back)."""
    cells, info = read(dataset(name))
    nodata = info["nodata"]
    if nodata is not None:
        cells = np.where(np.isnan(cells), nodata, cells)
    return cells.astype(DTYPES[info["type"]]), nodata


def cli_outputs(cli, tmp_path, input_path, sources, *flags):
    args = ["sssp", "-q"] + ["--source=%d,%d" % s for s in sources] + list(flags) + [
        "--backlink", tmp_path / "b.tif", "--allocation", tmp_path / "a.tif", input_path, tmp_path / "c.tif"]
    cli.run(*args)
    return read(tmp_path / "c.tif")[0], read(tmp_path / "b.tif")[0], read(tmp_path / "a.tif")[0]


def same_bits(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(np.isnan(a), np.isnan(b)) and \
        np.array_equal(a[~np.isnan(a)].view(np.uint64), b[~np.isnan(b)].view(np.uint64))


@pytest.mark.parametrize("name,weight", [("real/pysheds_dem.tif", "friction"), ("real/hugo_site.asc", "absdiff"),
                                         ("real/west_bijou_gully.asc", "max")],
                         ids=["pysheds_dem", "hugo_site", "west_bijou_gully"])
def test_cost_distance_array_matches_cli(cli, tmp_path, name, weight):
    values, nodata = load(name)
    valid = values != nodata if nodata is not None else ~np.isnan(values.astype(np.float64))
    ys, xs = np.nonzero(valid)
    sources = [(int(xs[len(xs) // 2]), int(ys[len(ys) // 2])), (int(xs[len(xs) // 7]), int(ys[len(ys) // 7]))]
    cost, back, alloc = terrazo.cost_distance_array(values, sources, nodata=nodata, weight=weight, allocation=True)
    assert cost.dtype == np.float64 and back.dtype == np.uint8 and alloc.dtype == np.uint32
    c, b, a = cli_outputs(cli, tmp_path, dataset(name), sources, "--weight", weight)
    assert same_bits(cost, c)
    assert np.array_equal(back, np.where(np.isnan(b), 255, b))
    assert np.array_equal(alloc, np.where(np.isnan(a), 0, a))
    assert np.count_nonzero(back == 255) >= len(sources)


def test_uniform_friction_oracle():
    """Friction 1 everywhere: a straight step costs 1, a diagonal one sqrt 2 (each exact to 0.5/scale)."""
    friction = np.ones((40, 50), dtype=np.int32)
    cost, back = terrazo.cost_distance_array(friction, [(0, 0)])
    assert cost[0, 0] == 0 and back[0, 0] == 255
    for x in range(50):
        assert cost[0, x] == x  # along the row
    for k in range(40):
        assert abs(cost[k, k] - k * math.sqrt(2)) <= k * 0.5 / 1e6 + 1e-9  # along the diagonal
    # 8-connected Chebyshev metric: min(dx,dy) diagonal steps plus |dx-dy| straight ones.
    ys, xs = np.mgrid[0:40, 0:50]
    oracle = np.minimum(xs, ys) * math.sqrt(2) + np.abs(xs - ys)
    assert np.allclose(cost, oracle, rtol=0, atol=1e-4)
    assert back[0, 5] == 4 and back[5, 0] == 6 and back[5, 5] == 5  # W, N, NW towards the source


def test_nan_cells_are_nodata(cli, tmp_path):
    rng = np.random.default_rng(3)
    friction = rng.uniform(1, 10, size=(64, 80))
    friction[rng.random(friction.shape) < 0.2] = np.nan
    friction[10, 10] = 1.0
    cost, back = terrazo.cost_distance_array(friction, [(10, 10)])
    holes = np.isnan(friction)
    assert np.all(np.isnan(cost[holes])) and np.all(back[holes] == 255)
    # The same array as a file with the CLI.
    terrazo._native.write_raster(str(tmp_path / "f.tif"), friction, "Float64")
    c, b, _ = cli_outputs(cli, tmp_path, tmp_path / "f.tif", [(10, 10)])
    assert same_bits(cost, c)
    assert np.array_equal(back, np.where(np.isnan(b), 255, b))


def test_nodata_value_of_an_integer_array():
    friction = np.full((20, 20), 5, dtype=np.int16)
    friction[:, 10] = -9999  # a wall of nodata
    cost, back = terrazo.cost_distance_array(friction, [(0, 0)], nodata=-9999)
    assert np.all(np.isnan(cost[:, 10:])) and np.all(back[:, 10:] == 255)
    assert np.all(~np.isnan(cost[:, :10]))


def test_layouts_and_dtypes_give_the_same_result():
    rng = np.random.default_rng(11)
    base = rng.integers(1, 200, size=(90, 70)).astype(np.int32)
    expected, expected_back = terrazo.cost_distance_array(base, [(5, 7)])
    fortran = np.asfortranarray(base)
    strided = np.zeros((180, 140), dtype=np.int32)
    strided[::2, ::2] = base
    view = strided[::2, ::2]
    assert not view.flags.c_contiguous
    transposed = np.ascontiguousarray(base.T).T
    for variant in (fortran, view, transposed, base.astype(np.int64), base.astype(np.uint16), base.astype(">i4")):
        cost, back = terrazo.cost_distance_array(variant, [(5, 7)])
        assert same_bits(cost, expected) and np.array_equal(back, expected_back)
    # Negative strides: a flipped view and its contiguous copy are the same raster.
    flipped = base[::-1, ::-1]
    cost, back = terrazo.cost_distance_array(flipped, [(5, 7)])
    copy_cost, copy_back = terrazo.cost_distance_array(np.ascontiguousarray(flipped), [(5, 7)])
    assert same_bits(cost, copy_cost) and np.array_equal(back, copy_back)
    assert not same_bits(cost, expected)  # and a different one from the unflipped raster
    # float64 cells of integer values are a Float64 raster: same paths, same costs here.
    cost, _ = terrazo.cost_distance_array(base.astype(np.float64), [(5, 7)])
    assert np.allclose(cost, expected, rtol=0, atol=1e-6)


def test_arrays_are_read_in_place_or_copied_once(tmp_path):
    """A raster type's array in any positive-stride layout reaches GDAL in place: the VRT's MEM band
    points at the array's own memory with its strides, and GDAL reads the array's cells from it. Other
    dtypes and negative strides are converted once (docs/python.md "In memory")."""
    gdal = pytest.importorskip("osgeo.gdal")
    from terrazo._arrays import _Grid
    base = np.random.default_rng(4).uniform(1, 9, size=(30, 20))
    strided = np.zeros((60, 40))
    strided[::2, ::2] = base
    for array in (base, np.asfortranarray(base), strided[::2, ::2], base.T, base.astype(np.float32),
                  base.astype(np.uint16), base > 5):
        grid = _Grid(array, None, "friction")
        assert not grid.copied, array.dtype
        pointer = grid.cells.__array_interface__["data"][0]
        assert pointer == array.__array_interface__["data"][0]
        path = str(tmp_path / "in.vrt")
        grid.write(path)
        with open(path) as f:
            assert "DATAPOINTER=0x%x," % pointer in f.read()
        dataset = gdal.OpenEx(path, gdal.OF_RASTER)
        assert np.array_equal(dataset.GetRasterBand(1).ReadAsArray(), array.astype(grid.cells.dtype))
        dataset = None
    for array in (base.astype(np.int8), base.astype(np.float16), base.astype(np.int64), base[::-1],
                  base.astype(">f8")):
        grid = _Grid(array, None, "friction")
        assert grid.copied and grid.cells.flags.c_contiguous, array.dtype
    # Nodata, geotransform and CRS travel in the VRT.
    grid = _Grid(base.astype(np.int16), -9999, "friction")
    grid.geotransform, grid.crs = (500000.0, 30.0, 0.0, 4100000.5, 0.0, -30.0), 'GEOGCS["x & <y>"]'
    grid.write(str(tmp_path / "g.vrt"))
    dataset = gdal.OpenEx(str(tmp_path / "g.vrt"), gdal.OF_RASTER)
    assert dataset.GetRasterBand(1).GetNoDataValue() == -9999
    assert dataset.GetGeoTransform() == grid.geotransform


def test_outputs_are_read_into_arrays_of_their_type(cli, tmp_path):
    """read_array: GDAL reads a terrazo output straight into an array of its own type, nodata cells
    NaN (float) or the caller's value (integers), equal to the generic reader's cells."""
    dem = dataset("real/pysheds_dem.tif")
    cli.run("sssp", "-q", "--source=180,180", "--ot=Float32", "--max-cost=20000", "--backlink", tmp_path / "b.tif", dem,
            tmp_path / "c.tif")  # unreached cells: nodata
    cost, info = terrazo._native.read_array(str(tmp_path / "c.tif"), "float32")
    generic, generic_info = read(tmp_path / "c.tif")
    assert cost.dtype == np.float32 and info == generic_info
    assert np.any(np.isnan(cost)) and same_bits(cost, generic)
    back, _ = terrazo._native.read_array(str(tmp_path / "b.tif"), "uint8", 255)
    generic = read(tmp_path / "b.tif")[0]
    assert np.array_equal(back, np.where(np.isnan(generic), 255, generic))
    # Another type than the raster's, or a format GDAL's fast path does not take: the generic reader.
    as_double, _ = terrazo._native.read_array(str(tmp_path / "c.tif"), "float64")
    assert as_double.dtype == np.float64 and same_bits(as_double, cost)
    ascii, _ = terrazo._native.read_array(dataset("real/hugo_site.asc"), "float64")
    assert same_bits(ascii, read(dataset("real/hugo_site.asc"))[0])


def test_bool_int8_and_float16_cells():
    walls = np.ones((20, 20), dtype=bool)
    cost_bool, _ = terrazo.cost_distance_array(walls, [(0, 0)])
    cost_byte, _ = terrazo.cost_distance_array(walls.astype(np.uint8), [(0, 0)])
    assert same_bits(cost_bool, cost_byte)
    small = np.full((20, 20), 3, dtype=np.int8)
    cost_int8, _ = terrazo.cost_distance_array(small, [(0, 0)])
    cost_int16, _ = terrazo.cost_distance_array(small.astype(np.int16), [(0, 0)])
    assert same_bits(cost_int8, cost_int16)
    half = np.full((20, 20), 1.5, dtype=np.float16)
    cost_half, _ = terrazo.cost_distance_array(half, [(0, 0)])
    cost_single, _ = terrazo.cost_distance_array(half.astype(np.float32), [(0, 0)])
    assert same_bits(cost_half, cost_single) and cost_half[0, 19] == 19 * 1.5


def test_float32_cost_and_masked_array():
    friction = np.ma.masked_array(np.full((30, 30), 2.0, dtype=np.float32), mask=np.zeros((30, 30), bool))
    friction.mask[0, 5] = True
    cost, back = terrazo.cost_distance_array(friction, [(0, 0)], cost_type="Float32")
    assert cost.dtype == np.float32 and np.isnan(cost[0, 5]) and back[0, 5] == 255
    assert cost[0, 4] == 8.0


def test_mask_sources_and_ids():
    friction = np.ones((25, 40), dtype=np.uint8)
    mask = np.zeros(friction.shape, dtype=np.uint32)
    mask[2, 3] = 7
    mask[20, 35] = 9
    cost, back, alloc = terrazo.cost_distance_array(friction, mask, allocation=True)
    assert cost[2, 3] == 0 and cost[20, 35] == 0
    assert alloc[2, 4] == 7 and alloc[20, 34] == 9 and set(np.unique(alloc)) == {7, 9}


def test_wrong_inputs_are_refused_clearly():
    with pytest.raises(TypeError, match="complex128"):
        terrazo.cost_distance_array(np.ones((4, 4), dtype=complex), [(0, 0)])
    with pytest.raises(TypeError, match="<U1"):
        terrazo.cost_distance_array(np.full((4, 4), "a"), [(0, 0)])
    with pytest.raises(ValueError, match="expected a 2-D array"):
        terrazo.cost_distance_array(np.ones((2, 4, 4)), [(0, 0)])
    with pytest.raises(ValueError, match="non-empty"):
        terrazo.cost_distance_array(np.ones((0, 4)), [(0, 0)])
    with pytest.raises(ValueError, match="do not fit a 32-bit raster"):
        terrazo.cost_distance_array(np.array([[1, 2**40]], dtype=np.int64), [(0, 0)])
    with pytest.raises(ValueError, match="--source"):
        terrazo.cost_distance_array(np.ones((4, 4)), [(9, 9)])  # outside: the CLI's message
    with pytest.raises(ValueError, match="--weight"):
        terrazo.cost_distance_array(np.ones((4, 4)), [(0, 0)], weight="nope")


def load_mst(name):
    values, nodata = load(name)
    return values, nodata


@pytest.mark.parametrize("name", ["real/pysheds_dem.tif", "real/west_bijou_gully.asc"],
                         ids=["pysheds_dem", "west_bijou_gully"])
def test_mst_array_matches_cli(cli, tmp_path, name):
    values, nodata = load(name)
    edges = terrazo.mst_array(values, nodata=nodata)
    cli.run("mst", "-q", dataset(name), tmp_path / "e.tif")
    expected = read(tmp_path / "e.tif")[0]
    assert edges.dtype == np.uint8
    assert np.array_equal(edges, np.where(np.isnan(expected), 255, expected))


def test_mst_array_edge_count_oracle():
    """A spanning tree of a connected grid has cells - 1 edges; nodata splits it into a forest."""
    rng = np.random.default_rng(5)
    dem = rng.uniform(0, 100, size=(33, 47))
    edges = terrazo.mst_array(dem)
    bits = np.unpackbits(edges[..., None], axis=-1)[..., 4:]  # bits 3..0 of each cell
    assert int(bits.sum()) == dem.size - 1


def clump_oracle(values, connectivity=8):
    """Labels of equal-valued 8-connected regions, numbered in row-major order of first cells."""
    h, w = values.shape
    labels = np.zeros((h, w), dtype=np.uint32)
    steps = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
    if connectivity == 4:
        steps = [(-1, 0), (0, -1), (0, 1), (1, 0)]
    next_label = 0
    for y in range(h):
        for x in range(w):
            if labels[y, x]:
                continue
            next_label += 1
            labels[y, x] = next_label
            stack = [(y, x)]
            while stack:
                cy, cx = stack.pop()
                for dy, dx in steps:
                    ny, nx = cy + dy, cx + dx
                    if 0 <= ny < h and 0 <= nx < w and not labels[ny, nx] and values[ny, nx] == values[cy, cx]:
                        labels[ny, nx] = next_label
                        stack.append((ny, nx))
    return labels


@pytest.mark.parametrize("seed,connectivity", [(1, 8), (2, 4), (3, 8)])
def test_clump_array_matches_oracle(seed, connectivity):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, size=(45, 61)).astype(np.int16)
    labels = terrazo.clump_array(values, connectivity=connectivity, tile=16)
    assert labels.dtype == np.uint32
    assert np.array_equal(labels, clump_oracle(values, connectivity))


def test_clump_array_matches_cli(cli, tmp_path):
    name = "real/srtm_bigtujunga30m_utm11.tif"
    values, nodata = load(name)
    labels = terrazo.clump_array(values, nodata=nodata, by="range:1000,1500")
    cli.run("clump", "-q", "--by", "range:1000,1500", dataset(name), tmp_path / "l.tif")
    expected = read(tmp_path / "l.tif")[0]
    assert np.array_equal(labels, np.where(np.isnan(expected), 0, expected))


def test_cost_only_without_backlink():
    friction = np.random.default_rng(4).uniform(1, 3, size=(50, 60)).astype(np.float32)
    cost, back = terrazo.cost_distance_array(friction, [(30, 25)], backlink=False)
    assert back is None
    expected, expected_back = terrazo.cost_distance_array(friction, [(30, 25)])
    assert same_bits(cost, expected) and expected_back is not None
