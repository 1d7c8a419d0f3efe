// tools/python/native/module.cpp: the extension module terrazo._native (docs/python.md). The Python
// package terrazo (tools/python/terrazo/) is the public face; this module holds only the bridges to the
// C++ library: commands (commands.h), rasters to and from arrays (raster_arrays.h).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>

#include <cpl_conv.h>

#include "kernels/common/cuda_device.h"
#include "tools/python/native/commands.h"
#include "tools/python/native/raster_arrays.h"

#ifndef TERRAZO_VERSION
#define TERRAZO_VERSION "unknown"
#endif

namespace py = pybind11;

PYBIND11_MODULE(_native, m) {
  m.doc() = "terrazo's C++ library (use the terrazo package, not this module)";
  m.attr("__version__") = TERRAZO_VERSION;
#ifdef TERRAZO_WITH_CUDA
  m.attr("cuda_built") = true;
#else
  m.attr("cuda_built") = false;
#endif
  m.def(
      "cuda_device",
      [] {
        const terrazo::CudaDeviceInfo& d = terrazo::cuda_device();
        py::dict info;
        info["available"] = d.available;
        info["reason"] = d.reason;
        info["name"] = d.name;
        info["multiprocessors"] = d.multiprocessors;
        info["global_memory"] = d.global_memory;
        return info;
      },
      "The CUDA device device='cuda' would use: {available, reason, name, multiprocessors, global_memory}.");
  m.def("run", &terrazo::python::run_command, py::arg("command"), py::arg("args"), py::arg("progress") = py::none(),
        "Runs a terrazo command on its command-line arguments; returns the --json summary line.");
  m.def("usage", &terrazo::python::command_usage, py::arg("command"), "The command's --help text.");
  m.def("commands", &terrazo::python::command_names, "The command names run() takes.");
  m.def("flags", &terrazo::python::command_flag_list, py::arg("command"),
        "The command's flags, in usage order: dicts of name, alias, type, value_name, choices, default, help, "
        "repeatable, keyword.");
  m.def("shared_flag", &terrazo::python::shared_flag_dict, py::arg("name"),
        "A flag several commands share (\"--memory\", \"--threads\", ...), with its one wording, as flags() gives it.");
  m.def("write_raster", &terrazo::python::write_raster, py::arg("path"), py::arg("cells"), py::arg("cell_type"),
        py::arg("nodata") = py::none(), py::arg("geotransform") = py::none(), py::arg("crs") = "",
        "Writes a 2-D array (any strides; NaN = nodata) as an uncompressed GeoTIFF of cell_type.");
  m.def("read_raster", &terrazo::python::read_raster, py::arg("path"), py::arg("dtype") = "float64",
        py::arg("none") = std::numeric_limits<double>::quiet_NaN(),
        "Reads band 1 of a raster into an array of dtype (nodata: NaN, or `none` for integers); returns (cells, description).");
  m.def("read_array", &terrazo::python::read_array, py::arg("path"), py::arg("dtype") = "float64",
        py::arg("none") = std::numeric_limits<double>::quiet_NaN(),
        "read_raster for a GDAL raster of the type dtype names: GDAL reads the cells straight into the new array.");
  // The in-memory functions hand arrays to the engine as GDAL MEM bands opened by name
  // (MEM:::DATAPOINTER=..., terrazo/_arrays.py); GDAL 3.10 and later open those only with this set.
  CPLSetConfigOption("GDAL_MEM_ENABLE_OPEN", "YES");
}
