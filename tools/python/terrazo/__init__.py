"""terrazo: exact, out-of-core terrain graph algorithms (cost distance, least-cost paths, minimum
spanning trees, clumps) on rasters larger than memory, from Python.

The functions run terrazo's C++ library, the same options, progress and errors as the ``terrazo``
program (docs/python.md):

Files, out of core (each returns the command's --json summary as a dict):
    cost_distance, path, mst, fill, flow_direction, flow_accumulation, watershed, clump, corridor, od_matrix, network, index, render, import_raster,
    export_raster, info, generate, run, usage
In memory (numpy arrays or xarray DataArrays in and out):
    cost_distance_array, mst_array, clump_array

Every function takes ``progress=``, a callable ``(phase, fraction)``, called with the GIL held;
the C++ run itself holds no GIL. Ctrl-C (or an exception raised by ``progress``) stops a run
cleanly: no output is published, and the exception (KeyboardInterrupt) propagates. Errors:
ValueError for bad arguments, OSError for files that cannot be read or written, MemoryError for a
``memory=`` budget too small, RuntimeError for other failures; the message is the CLI's.
"""

from ._native import __version__, cuda_built, cuda_device
from ._commands import (clump, corridor, cost_distance, export_raster, fill, flow_accumulation, flow_direction, generate, import_raster, index, info, mst,
                        network, od_matrix, path, render, run, usage, watershed)

try:
    from ._arrays import clump_array, cost_distance_array, mst_array
except ImportError as _error:  # numpy missing: the file functions still work
    _numpy_error = _error

    def _needs_numpy(*args, **kwargs):
        raise ImportError("terrazo's in-memory functions need numpy (apt install python3-numpy): %s" % _numpy_error)

    clump_array = cost_distance_array = mst_array = _needs_numpy

__all__ = ["__version__", "cuda_built", "cuda_device", "cost_distance", "path", "mst", "fill", "flow_direction", "flow_accumulation", "watershed", "clump", "corridor", "od_matrix",
           "network", "index", "render", "import_raster", "export_raster", "info", "generate", "run", "usage", "cost_distance_array", "mst_array", "clump_array"]
