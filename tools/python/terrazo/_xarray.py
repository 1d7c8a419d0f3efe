"""xarray / rioxarray DataArrays for the in-memory functions (docs/python.md "xarray").

Imported only when a DataArray is passed. The georeferencing of an input comes from rioxarray
(``da.rio.transform()``, ``da.rio.crs``) when it is installed, else from regularly spaced 1-D
coordinates of its last two dimensions (cell centres); outputs copy the input's dimensions,
coordinates and attributes, and its CRS (``rio.write_crs``) when rioxarray is there.
"""

import numpy as np


def _rio(data):
    try:
        import rioxarray  # noqa: F401  (registers the .rio accessor)
    except ImportError:
        return None
    return data.rio


def georeference(data):
    """(geotransform in GDAL order or None, CRS as WKT or "") of a 2-D DataArray."""
    if data.ndim != 2:
        raise ValueError("friction: expected a 2-D DataArray (y, x), got dimensions %s" % (data.dims,))
    rio = _rio(data)
    if rio is not None:
        try:
            transform = rio.transform()
            crs = rio.crs
            geotransform = tuple(float(v) for v in transform.to_gdal())
            return geotransform, (crs.to_wkt() if crs is not None else "")
        except Exception:  # no spatial dimensions rioxarray recognizes: fall back to the coordinates
            pass
    y_dim, x_dim = data.dims
    if x_dim in data.coords and y_dim in data.coords:
        xs = np.asarray(data.coords[x_dim].values, dtype=np.float64)
        ys = np.asarray(data.coords[y_dim].values, dtype=np.float64)
        if len(xs) > 1 and len(ys) > 1:
            dx, dy = np.diff(xs), np.diff(ys)
            if np.allclose(dx, dx[0]) and np.allclose(dy, dy[0]):
                return (xs[0] - dx[0] / 2, float(dx[0]), 0.0, ys[0] - dy[0] / 2, 0.0, float(dy[0])), ""
    return None, ""


def like(template, array, name, attrs):
    """A DataArray of `array` with the template's dimensions, coordinates, attributes and CRS."""
    import xarray
    out = xarray.DataArray(array, coords=template.coords, dims=template.dims, name=name,
                           attrs=dict(template.attrs, **attrs))
    rio = _rio(template)
    if rio is not None:
        try:
            if rio.crs is not None:
                out = out.rio.write_crs(rio.crs)
        except Exception:
            pass
    return out
