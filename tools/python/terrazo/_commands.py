"""terrazo's commands as Python functions, file to file, out of core (docs/python.md "Files").

Each function spells its keyword arguments as the command's flags (``max_cost=5e6`` is
``--max-cost=5e6``, ``map_coords=True`` is ``--map-coords``, a list repeats the flag) and hands
them to the command's own C++ parser and run function (``terrazo._native.run``), exactly as the
``terrazo`` program does: same defaults, same checks, same one-line messages, same outputs bit for
bit. The return value is the command's ``--json`` summary as a dict.
"""

import json
import numbers
import os

from . import _native

__all__ = ["cost_distance", "mst", "fill", "flow_direction", "flow_accumulation", "watershed", "path", "clump", "corridor", "od_matrix", "network", "index", "render",
           "import_raster", "export_raster", "info", "generate", "run", "usage"]

_KEYWORDS = {}  # command -> {keyword: flag declaration}, from the flag table


def _keywords(command):
    """The command's keywords and their flags, from the flag table (``_native.flags``): each flag's
    name spelled as a keyword (``--max-cost`` is ``max_cost``), and a repeatable flag's plural
    keyword too (``sources`` for ``--source``)."""
    if command not in _KEYWORDS:
        table = {}
        for flag in _native.flags(command):
            table[flag["name"][2:].replace("-", "_")] = flag
            if flag["keyword"]:
                table[flag["keyword"]] = flag
        _KEYWORDS[command] = table
    return _KEYWORDS[command]


def _text(value):
    """A flag value as the command line types it: numbers exactly (repr of a float round-trips)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a flag value")
    if isinstance(value, float):
        return repr(value)
    if hasattr(value, "tolist"):  # numpy scalars and rows of a (n, 2) array of points
        value = value.tolist()
    if isinstance(value, (tuple, list)):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _flags(command, options):
    """Keyword arguments as command-line flags, in the order given; None and False are left out. A
    keyword the command's flag table does not know is spelled by the same rule and left to the
    command's parser to refuse (one "unknown flag" message, as the CLI's)."""
    keywords = _keywords(command)
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        declared = keywords.get(key)
        if declared is not None and declared["repeatable"]:
            flag = declared["name"]
            if isinstance(value, dict):  # co={"COMPRESS": "DEFLATE"}
                items = ["%s=%s" % (k, _text(v)) for k, v in value.items()]
            elif isinstance(value, (str, os.PathLike)):
                items = [value]
            elif declared["type"] == "point" and all(isinstance(v, numbers.Number) for v in value):
                items = [value]  # one point (x, y)
            else:
                items = list(value)
            args += ["%s=%s" % (flag, _text(item)) for item in items]
            continue
        flag = declared["name"] if declared is not None else "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
        else:
            args.append("%s=%s" % (flag, _text(value)))
    return args


def run(command, *positionals, progress=None, **options):
    """Runs terrazo ``command`` (``"sssp"``, ``"mst"``, ...) on ``positionals`` (INPUT OUTPUT) with
    ``options`` as flags; returns the --json summary as a dict. The other functions call this."""
    if progress is not None and not callable(progress):
        raise TypeError("progress= takes a callable (phase, fraction), got %r" % (progress,))
    args = _flags(command, options) + ["--json"]
    files = [_text(p) for p in positionals]
    if any(f.startswith("-") and f != "-" for f in files):
        args.append("--")  # a file name starting with '-' is not a flag
    return json.loads(_native.run(command, args + files, progress))


def usage(command):
    """The ``terrazo COMMAND --help`` text: every flag the function of that command takes."""
    return _native.usage(command)


def cost_distance(input, output=None, *, sources=None, backlink=None, allocation=None, weight=None, scale=None,
                  connectivity=None, max_cost=None, memory=None, device=None, progress=None, **flags):
    """Cost distance from ``sources`` over ``input``, out of core (``terrazo sssp``, docs/sssp.md).

    input: any GDAL raster or a .tzs tile store. output: the cost GeoTIFF (Float64; None writes
    none). sources: [(x, y), ...] cells (column, row), or map coordinates with map_coords=True or
    source_crs="EPSG:4326"; or give sources_file= / source_raster=. backlink, allocation: GeoTIFF
    paths for the predecessor directions and the nearest source ids. Every other flag of
    ``terrazo sssp --help`` is a keyword (``ot="Float32"``, ``exchange="streamed"``, ``tile=512``,
    ``co={"COMPRESS": "DEFLATE"}``). Per-source settings (docs/sssp.md "Per-source settings"):
    ``sources_file="depots.gpkg"`` with ``source_initial_field=``, ``source_max_field=``,
    ``source_multiplier_field=`` (attribute names), and ``source_initial=``, ``source_multiplier=``
    for every source; the summary's ``source_groups`` counts the passes. progress: a callable
    (phase, fraction). Returns the --json summary as a dict.

    >>> terrazo.cost_distance("dem.tif", "cost.tif", sources=[(180, 180)], backlink="back.tif")
    >>> terrazo.cost_distance("friction.tif", "cost.tif", sources_file="depots.geojson",
    ...                       source_multiplier_field="speed", source_max_field="range")
    """
    return run("sssp", input, "-" if output is None else output, progress=progress, sources=sources,
               backlink=backlink, allocation=allocation, weight=weight, scale=scale, connectivity=connectivity,
               max_cost=max_cost, memory=memory, device=device, **flags)


def mst(input, output=None, *, edge_list=None, weight=None, scale=None, connectivity=None, memory=None, device=None,
        progress=None, **flags):
    """Minimum spanning forest of ``input``'s grid graph, out of core (``terrazo mst``, docs/mst.md).

    output: the Byte edge GeoTIFF (bit 0 E, 1 SE, 2 S, 3 SW of each cell; 255 nodata; None writes
    none). edge_list: also the binary edge records. Other flags of ``terrazo mst --help`` as keywords
    (``merge="cpu-levels"``, ``tile=128``). Returns the --json summary (``total_weight``, ``edges``, ...).

    >>> terrazo.mst("dem.tif", "edges.tif", memory="512M")["edges"]
    """
    return run("mst", input, "-" if output is None else output, progress=progress, edge_list=edge_list,
               weight=weight, scale=scale, connectivity=connectivity, memory=memory, device=device, **flags)


def fill(input, output, *, outlets=None, connectivity=None, memory=None, device=None, progress=None, **flags):
    """Fills the depressions of the elevation raster ``input``, exactly and out of core
    (``terrazo fill``, docs/fill.md): each cell raised to the least level at which its water leaves
    the raster. outlets: "both" (default), "edge" or "nodata". device: "auto", "cpu" or "cuda" (the
    raster held in GPU memory; the same bits). Other flags of ``terrazo fill --help`` as keywords
    (``tile=128``, ``threads=4``, ``gpu_memory="40G"``). Returns the --json summary (``raised_cells``,
    ``path``, ...).

    >>> terrazo.fill("dem.tif", "filled.tif", memory="1G")["raised_cells"]
    """
    return run("fill", input, output, progress=progress, outlets=outlets, connectivity=connectivity, memory=memory,
               device=device, **flags)


def flow_direction(input, output, *, outlets=None, memory=None, progress=None, **flags):
    """D8 flow directions of the (filled) elevation raster ``input``, exactly and out of core
    (``terrazo flowdir``, docs/flow.md): a Byte GeoTIFF of ESRI's codes (1 E, 2 SE, 4 S, 8 SW, 16 W,
    32 NW, 64 N, 128 NE; 0 no flow, 255 nodata), flats drained as Barnes, Lehman and Mulla (2014).
    outlets: "both" (default), "edge" or "nodata", as ``fill``'s. ``device="cuda"`` computes them with
    the whole raster on the GPU (the same bytes). Other flags of ``terrazo flowdir --help`` as keywords
    (``tile=512``, ``threads=4``). Returns the --json summary (``flat_cells``, ``flats``,
    ``undrained_cells``, ``path``, ...).

    >>> terrazo.fill("dem.tif", "filled.tif")
    >>> terrazo.flow_direction("filled.tif", "flowdir.tif", memory="1G")["flats"]
    """
    return run("flowdir", input, output, progress=progress, outlets=outlets, memory=memory, **flags)


def flow_accumulation(input, output, *, weight=None, scale=None, memory=None, progress=None, **flags):
    """Flow accumulation of the D8 direction raster ``input`` (ESRI codes, as ``terrazo flowdir``
    writes them), exactly and out of core (``terrazo flowacc``, docs/flow.md): each cell gets the
    number of cells whose flow passes through it, itself included, or with ``weight`` (a raster on
    the same grid) the sum of their weights (Float64, summed exactly in 64-bit fixed point at
    ``scale``). ``device="cuda"`` accumulates the whole raster on the GPU (the same bytes). Other flags of
    ``terrazo flowacc --help`` as keywords (``ot="Float64"``, ``tile=512``).
    Returns the --json summary (``valid_cells``, ``outlets``, ``largest``, ...).

    >>> terrazo.flow_accumulation("dir.tif", "acc.tif", memory="1G")["largest"]
    """
    return run("flowacc", input, output, progress=progress, weight=weight, scale=scale, memory=memory, **flags)


def watershed(input, output, *, memory=None, progress=None, **flags):
    """Drainage basins of the D8 direction raster ``input`` (``terrazo watershed``, docs/flow.md):
    the cells whose flow ends at the same cell share a basin, labelled 1..K (UInt32, 0 nodata) in
    raster order of each basin's first cell; exact and out of core. Pour points: ``outlets=[(x, y),
    ...]`` (cells; map coordinates with ``map_coords=True``) and/or ``outlets_file=`` (a point
    layer, as sssp's sources_file): only the cells draining to one are labelled (the others 0);
    ``snap=N`` with ``accumulation=`` (flow_accumulation's output) first moves each to the largest
    accumulation within N cells. Streams: ``streams=T`` with ``accumulation=`` writes the stream
    network of the cells of accumulation >= T to ``streams_raster=`` (UInt8 Strahler orders) and/or
    ``streams_vector=`` (GeoJSON segments). Other flags of ``terrazo watershed --help`` as keywords
    (``tile=512``). Returns the --json summary (``basins``, ``labelled_cells``, ``pour_points``
    [{x, y, snapped_x, snapped_y, basin}], ``stream_cells``, ``segments``, ``max_order``, ...).

    >>> terrazo.watershed("dir.tif", "basins.tif", memory="1G")["basins"]
    >>> terrazo.watershed("dir.tif", "gauged.tif", outlets=[(812, 455)], snap=5, accumulation="acc.tif")
    >>> terrazo.watershed("dir.tif", "basins.tif", streams=1000, accumulation="acc.tif",
    ...                   streams_raster="strahler.tif", streams_vector="streams.geojson")["max_order"]
    """
    return run("watershed", input, output, progress=progress, memory=memory, **flags)


def path(output, *, backlink, cost, dests, mask=None, memory=None, progress=None, **flags):
    """Least-cost paths from ``dests`` [(x, y), ...] back to their source, traced through the
    ``backlink`` and ``cost`` rasters of one cost_distance run, as GeoJSON (``terrazo path``).
    Other flags of ``terrazo path --help`` as keywords (``map_coords=True``, ``dest_crs=...``).

    >>> terrazo.path("paths.geojson", backlink="back.tif", cost="cost.tif", dests=[(10, 20), (350, 300)])
    """
    return run("path", output, progress=progress, backlink=backlink, cost=cost, dests=dests, mask=mask,
               memory=memory, **flags)


def clump(input, output, *, by=None, connectivity=None, stats=None, memory=None, progress=None, **flags):
    """Connected regions of ``input``, labels 1..K in raster order, 0 nodata (``terrazo clump``,
    docs/clump.md). by: "value", "valid" or "range:LO,HI". stats: a CSV path for per-region stats.

    >>> terrazo.clump("landcover.tif", "regions.tif", by="value")["regions"]
    """
    return run("clump", input, output, progress=progress, by=by, connectivity=connectivity, stats=stats,
               memory=memory, **flags)


def import_raster(input, output, *, tile=None, memory=None, progress=None, **flags):
    """Any GDAL raster into a terrazo tile store (.tzs), one streaming pass (``terrazo import``).

    >>> terrazo.import_raster("dem.tif", "dem.tzs", tile=256)
    """
    return run("import", input, output, progress=progress, tile=tile, memory=memory, **flags)


def export_raster(input, output, *, block=None, co=None, threads=None, memory=None, progress=None, **flags):
    """A tile store (or any raster) to a tiled, compressed GeoTIFF (``terrazo export``).

    >>> terrazo.export_raster("dem.tzs", "dem.tif", co={"COMPRESS": "DEFLATE"})
    """
    return run("export", input, output, progress=progress, block=block, co=co, threads=threads, memory=memory,
               **flags)


def info(input, *, memory=None, progress=None, **flags):
    """Size, type, tiles, nodata, min/max (read from every cell), geotransform and CRS of a store or
    any GDAL raster (``terrazo info``), as a dict.

    >>> terrazo.info("dem.tzs")["width"]
    """
    return run("info", input, progress=progress, memory=memory, **flags)


def generate(output, *, width, height, seed=None, type=None, memory=None, progress=None, **flags):
    """Deterministic fractal terrain of any size, streamed to a .tzs or .tif (``terrazo gen``).
    Other flags of ``terrazo gen --help`` as keywords (``nodata_holes=0.05``, ``no_rivers=True``,
    ``relief=500``, ``crs="EPSG:32611"``).

    >>> terrazo.generate("big.tzs", width=4096, height=4096, seed=7, nodata_holes=0.05)
    """
    return run("gen", output, progress=progress, width=width, height=height, seed=seed, type=type, memory=memory,
               **flags)


def corridor(cost_a, cost_b, output, *, threshold=None, percent=None, memory=None, progress=None, **flags):
    """The least-cost corridor of two cost surfaces (two cost_distance runs over the same raster, one
    from each source): their sum, kept within ``threshold`` cost units or ``percent`` above the
    least cost (``terrazo corridor``, docs/corridor.md).

    >>> terrazo.corridor("cost_a.tif", "cost_b.tif", "corridor.tif", percent=5)["corridor_cells"]
    """
    return run("corridor", cost_a, cost_b, output, progress=progress, threshold=threshold, percent=percent,
               memory=memory, **flags)


def od_matrix(input, output, *, sites=None, sites_raster=None, index=None, weight=None, connectivity=None,
              max_cost=None, wide=False, memory=None, progress=None, **flags):
    """The exact cost-distance matrix between ``sites`` [(x, y), ...] as CSV (from_id, to_id, cost; K x K
    with ``wide=True``), through a boundary-graph ``index`` when given (``terrazo od-matrix``,
    docs/index.md). ``sites_raster``: region sites instead, a raster of zone ids (positive integers; 0
    and nodata: none), the cost between two regions the least over their cells' pairs.
    ``map_coords=True``, ``sites_file=``, ``skip_empty_features=True`` (features of ``sites_file``
    without geometry skipped, their ids left unused; refused without it), ``skip_fingerprint_check=True``
    (an ``index`` is checked against the cells of ``input`` unless given) as the CLI's flags; ``transient_index=True`` (the default with
    ``device="cuda"`` and no ``index``) builds an index first, queries it and drops it: with
    ``device="cuda"`` in the GPU's memory, on the CPU in host memory (about 32 bytes a cell: give
    ``memory=`` that much) followed by the sweep, a file in the scratch directory only when the memory
    cannot hold it.

    >>> terrazo.od_matrix("dem.tif", "matrix.csv", sites=[(20, 40), (300, 320), (180, 180)])
    >>> terrazo.od_matrix("friction.tif", "patches.csv", sites_raster="patches.tif")
    """
    return run("od-matrix", input, output, progress=progress, sites=sites, sites_raster=sites_raster, index=index,
               weight=weight, connectivity=connectivity, max_cost=max_cost, wide=wide, memory=memory, **flags)


def network(input, output, *, sites=None, sites_raster=None, index=None, weight=None, connectivity=None, memory=None,
            progress=None, **flags):
    """The least-cost network of ``sites``: the minimum spanning tree of their cost matrix, each edge a
    least-cost path, as GeoJSON lines (``terrazo network``, docs/index.md). ``sites_raster``: region
    sites instead (a raster of zone ids, as od_matrix); each edge runs between the two regions' nearest
    cells and is named by the region ids.

    >>> terrazo.network("dem.tif", "network.geojson", sites=[(20, 40), (300, 320), (180, 180)])["edges"]
    >>> terrazo.network("friction.tif", "corridors.geojson", sites_raster="patches.tif")["components"]
    """
    return run("network", input, output, progress=progress, sites=sites, sites_raster=sites_raster, index=index,
               weight=weight, connectivity=connectivity, memory=memory, **flags)


def index(input, output, *, weight=None, connectivity=None, memory=None, device=None, progress=None, **flags):
    """The boundary-graph index (.tzi) of ``input`` that od_matrix and network answer many-site queries
    with (``terrazo index``, docs/index.md).

    >>> terrazo.index("dem.tif", "dem.tzi", memory="2G")
    """
    return run("index", input, output, progress=progress, weight=weight, connectivity=connectivity, memory=memory,
               device=device, **flags)


def render(input, output, *, kind=None, width=None, terrain=None, paths=None, sources=None, contours=None,
           range=None, colour_map=None, legend=True, memory=None, progress=None, **flags):
    """A quick-look PNG of a DEM or any terrazo output (``terrazo render``, docs/render.md): kind
    "auto", "dem", "cost", "backlink", "labels" or "edges"; ``terrain``: a DEM whose hillshade goes
    underneath; ``paths``: GeoJSON line files drawn on top; ``sources``: [(x, y), ...] markers;
    ``range=(lo, hi)`` of the colour map; ``legend=False`` leaves the legend panel out.

    >>> terrazo.render("cost.tif", "cost.png", terrain="dem.tif", paths="paths.geojson", width=800)
    """
    return run("render", input, output, progress=progress, kind=kind, width=width, terrain=terrain, paths=paths,
               sources=sources, contours=contours, range=range, colour_map=colour_map, no_legend=not legend,
               memory=memory, **flags)
