// tests/test_weight_params.cpp: the one weight rule of engine/cost_models/weight_params.h (docs/weights.md): the
// default scale of each pipeline against a brute-force search over the powers of 10, scale 1 for
// exact integer weights, the offset of the max model, the refusals (friction on negative costs exit 2
// in mst and sssp alike, a --scale that overflows), and the error bound reported with the scale.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/cost_models/weight_params.h"
#include "kernels/common/error.h"
#include "tests/support/expect_message.h"
#include "tests/support/memory_tile_input.h"
#include "tests/support/sssp_reference.h"
#include "tests/support/test_support.h"

namespace terrazo {
namespace {

RasterInfo stats(CellType type, double min, double max) {
  RasterInfo info;
  info.width = info.height = 10;
  info.type = type;
  info.has_stats = true;
  info.min = min;
  info.max = max;
  info.valid_cells = 100;
  return info;
}

// The largest step weight of docs/weights.md, written out.
double largest_step(WeightModel model, double min, double max, Connectivity c) {
  if (model == WeightModel::Max) return max - std::min(min, 0.0);
  if (model == WeightModel::AbsDiff) return max - min;
  return max * (c == Connectivity::Eight ? std::sqrt(2.0) : 1.0);
}

// Oracle: the largest 10^k (k in -300..300) with L * 10^k <= limit, by trying every k.
double brute_force_power_of_ten(double largest, double limit) {
  double best = 0;
  for (int k = -300; k <= 300; ++k) {
    const double s = std::pow(10.0, k);
    if (largest * s <= limit) best = s;
  }
  return best;
}

std::string usage_error_of(WeightModel model, double scale, const RasterInfo& info, double limit) {
  try {
    choose_weight_params(model, scale, info, Connectivity::Eight, limit);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a UsageError: ") + e.what();
  }
  return "";
}

std::string usage_error_of_data(WeightModel model, const MemoryTileInput<double>& data);

TEST(WeightParams, DefaultScaleIsTheLargestPowerOfTenUnderEachPipelinesLimit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-6, 9);
  const WeightModel models[] = {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction};
  for (int trial = 0; trial < 500; ++trial) {
    const double a = std::pow(10.0, exponent(rng)), b = std::pow(10.0, exponent(rng));
    const double min = std::min(a, b) * (trial % 3 == 0 ? -1 : 1), max = std::max(a, b);
    const WeightModel model = models[trial % 3];
    if (model == WeightModel::Friction && min < 0) continue;
    const Connectivity c = trial % 2 ? Connectivity::Eight : Connectivity::Four;
    const double L = largest_step(model, min, max, c);
    for (double limit : {kMstDefaultStepLimit, kSsspDefaultStepLimit}) {
      const double expected = brute_force_power_of_ten(L, limit);
      if (model == WeightModel::Friction && 0.5 / (expected * min) > kMaxRelativeErrorBound) {
        // Costs spanning more than the fixed point resolves (docs/weights.md "Refused data").
        EXPECT_THROW(choose_weight_params(model, 0, stats(CellType::Float32, min, max), c, limit), UsageError);
        continue;
      }
      const WeightChoice w = choose_weight_params(model, 0, stats(CellType::Float32, min, max), c, limit);
      EXPECT_EQ(w.params.scale, expected) << L << " " << limit;
      EXPECT_LE(L * w.params.scale, limit);
      EXPECT_DOUBLE_EQ(w.largest_step, L);
      EXPECT_FALSE(w.scale_given);
      EXPECT_EQ(w.step_error_bound, 0.5 / w.params.scale);
    }
  }
  // The limits differ by a factor 2 (docs/weights.md): L = 2000 gets 1e6 in mst, 1e5 in sssp.
  const RasterInfo info = stats(CellType::Float32, 1000, 2000);
  EXPECT_EQ(mst_weight_params(WeightModel::Max, 0, info, Connectivity::Eight).scale, 1e6);
  EXPECT_EQ(sssp_weight_params(WeightModel::Max, 0, info, Connectivity::Eight).scale, 1e5);
}

TEST(WeightParams, IntegerRastersGetScaleOneWhenEveryWeightIsAnExactInteger) {
  for (CellType type : {CellType::UInt8, CellType::Int16, CellType::UInt16, CellType::Int32, CellType::UInt32}) {
    for (double limit : {kMstDefaultStepLimit, kSsspDefaultStepLimit}) {
      for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff}) {
        const WeightChoice w = choose_weight_params(model, 0, stats(type, 147, 298), Connectivity::Eight, limit);
        EXPECT_EQ(w.params.scale, 1.0);
        EXPECT_EQ(w.step_error_bound, 0.0);
      }
      // Friction halves and multiplies by sqrt 2: not integers, so the power of 10 (298 sqrt 2 = 421.4).
      const WeightChoice f = choose_weight_params(WeightModel::Friction, 0, stats(type, 147, 298),
                                                  Connectivity::Eight, limit);
      EXPECT_EQ(f.params.scale, 1e6);
      EXPECT_EQ(f.step_error_bound, 0.5e-6);
    }
  }
  // The same integers in a float raster: the power-of-10 rule (the cell type decides).
  EXPECT_EQ(mst_weight_params(WeightModel::AbsDiff, 0, stats(CellType::Float32, 147, 298), Connectivity::Eight).scale,
            1e7);
  // Integer weights above the limit fall back to the power-of-10 rule (scale 0.1 here).
  const WeightChoice big =
      choose_weight_params(WeightModel::AbsDiff, 0, stats(CellType::UInt32, 0, 4e9), Connectivity::Eight,
                           kSsspDefaultStepLimit);
  EXPECT_EQ(big.params.scale, 0.1);
  EXPECT_EQ(big.step_error_bound, 5.0);
}

TEST(WeightParams, MaxModelOffsetAndNoStatistics) {
  const WeightParams p = mst_weight_params(WeightModel::Max, 0, stats(CellType::Int32, -5, 4), Connectivity::Eight);
  EXPECT_EQ(p.offset, -5.0);
  EXPECT_EQ(p.scale, 1.0);
  EXPECT_EQ(sssp_weight_params(WeightModel::AbsDiff, 0, stats(CellType::Float32, -5, 4), Connectivity::Eight).offset,
            0.0);
  RasterInfo none;  // nodata everywhere: no statistics
  none.type = CellType::Float32;
  for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction}) {
    const WeightChoice w = choose_weight_params(model, 0, none, Connectivity::Eight, kMstDefaultStepLimit);
    EXPECT_EQ(w.params.scale, 1.0);
    EXPECT_EQ(w.params.offset, 0.0);
    EXPECT_EQ(w.largest_step, 0.0);
  }
}

TEST(WeightParams, GivenScaleIsKeptAndCheckedAgainstTheWeightRange) {
  const RasterInfo info = stats(CellType::Float32, 1000, 2000);
  const WeightChoice w = choose_weight_params(WeightModel::Max, 3, info, Connectivity::Eight, kSsspDefaultStepLimit);
  EXPECT_TRUE(w.scale_given);
  EXPECT_EQ(w.params.scale, 3.0);
  // 2000 x 1e9 overflows 2^32 - 2: a usage error naming --scale and the largest scale that fits.
  const std::string overflow = usage_error_of(WeightModel::Max, 1e9, info, kMstDefaultStepLimit);
  testing::expect_mentions(overflow, {"--scale", "2147483.647"});
  for (double bad : {-1.0, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_NE(usage_error_of(WeightModel::Max, bad, info, kMstDefaultStepLimit).find("--scale"), std::string::npos);
}

TEST(WeightParams, NegativeFrictionIsAUsageErrorInEveryPipeline) {
  const RasterInfo info = stats(CellType::Float32, -2, 10);
  for (double limit : {kMstDefaultStepLimit, kSsspDefaultStepLimit}) {
    const std::string message = usage_error_of(WeightModel::Friction, 0, info, limit);
    testing::expect_mentions(message, {"non-negative", "-2"});
  }
  // absdiff and max take negative values.
  EXPECT_EQ(usage_error_of(WeightModel::AbsDiff, 0, info, kMstDefaultStepLimit), "");
  EXPECT_EQ(usage_error_of(WeightModel::Max, 0, info, kSsspDefaultStepLimit), "");
}

using testing::CliRun;
using testing::run_cli;

TEST(WeightParamsCli, NegativeFrictionExitsTwoInMstAndSssp) {
  testing::TempDir dir;
  std::vector<double> values(100, 3.0);
  values[7] = -2;
  const std::string input = dir.file("negative.tif");
  testing::write_raster_values(input, 10, 10, values, CellType::Float32, -9999);
  for (const std::string& args : {"mst -q --weight friction " + input + " " + dir.file("edges.tif"),
                                 "sssp -q --source 1,1 " + input + " " + dir.file("cost.tif")}) {
    const CliRun r = run_cli(args, dir);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("non-negative"), std::string::npos) << r.err;
  }
}


// A 40 x 30 raster in memory as the pipelines' TileInput (a copy of `values`, tiles of 16, every
// tile present).
using MemoryInput = MemoryTileInput<double>;
MemoryInput raster(std::vector<double> values) {
  return MemoryInput(std::move(values), 40, 30, 16, MemoryInput::Absent::Never);
}

// A 40 x 30 terrain of values 100..400 (a ramp with a ripple).
std::vector<double> terrain(double base = 100) {
  std::vector<double> v(40 * 30);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) v[y * 40 + x] = base + 5 * x + 3 * y + (x * 7 + y * 13) % 11;
  return v;
}

// The message of the UsageError of sssp's default rule on `data` (Float64), "" when accepted.
std::string usage_error_of_data(WeightModel model, const MemoryTileInput<double>& data) {
  try {
    choose_weight_params(model, 0, data.info(CellType::Float64), Connectivity::Eight, kSsspDefaultStepLimit, &data);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(WeightParams, OneOutlierIsRefusedNamingItsValueAndCell) {
  std::vector<double> v = terrain();
  v[17 * 40 + 23] = 1e300;  // cell 23,17
  const MemoryInput data = raster(v);
  for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction})
    for (double limit : {kMstDefaultStepLimit, kSsspDefaultStepLimit}) {
      try {
        choose_weight_params(model, 0, data.info(CellType::Float64), Connectivity::Eight, limit, &data);
        ADD_FAILURE() << "accepted the outlier, model " << to_string(model);
      } catch (const UsageError& e) {
        const std::string m = e.what();
        testing::expect_mentions(m, {"1e+300", "23,17 (column,row)", "--scale", "nodata"});
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      }
    }
  // The same outlier, negative (an undeclared nodata value such as -3.4e38): max and absdiff.
  v[17 * 40 + 23] = -3.4e38;
  const MemoryInput negative = raster(v);
  for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff}) {
    const std::string m = usage_error_of_data(model, negative);
    testing::expect_mentions(m, {"-3.4e+38", "23,17"});
  }
}

TEST(WeightParams, LargeValuesWithoutAnOutlierAreAccepted) {
  // Steps of ~1e7 units: the default scale is below 1 (the data is scanned), and no step rounds to 0.
  std::vector<double> v = terrain();
  for (double& x : v) x *= 5e7;
  const MemoryInput data = raster(v);
  for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction}) {
    const WeightChoice w =
        choose_weight_params(model, 0, data.info(CellType::Float64), Connectivity::Eight, kSsspDefaultStepLimit, &data);
    EXPECT_LT(w.params.scale, 1.0);
    EXPECT_GT(w.nonzero_steps, 1000u);
    EXPECT_EQ(w.collapsed_steps, 0u);
  }
}

TEST(WeightParams, InfiniteValuesAreRefusedNamingTheCell) {
  for (double inf : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    std::vector<double> v = terrain();
    v[3 * 40 + 5] = inf;
    const MemoryInput data = raster(v);
    for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction}) {
      const std::string m = usage_error_of_data(model, data);
      testing::expect_mentions(m, {"inf", "5,3 (column,row)"});
      EXPECT_EQ(m.find("--scale 0"), std::string::npos) << m;
    }
  }
  // Negative friction names its cell too.
  std::vector<double> v = terrain();
  v[29 * 40 + 39] = -1;
  const MemoryInput negative = raster(v);
  const std::string m = usage_error_of_data(WeightModel::Friction, negative);
  testing::expect_mentions(m, {"non-negative", "39,29 (column,row)"});
}

TEST(WeightParams, FrictionRelativeErrorBoundIsCheckedAtTheDefaultScale) {
  // Costs 1..1e7: L = 1.41e7; sssp's default scale 10 gives a relative bound 0.5 / (10 x 1) = 5 % > 1 %,
  // mst's 100 gives 0.5 %.
  std::vector<double> v = terrain(1);
  v[0] = 1;
  v[5] = 1e7;
  const MemoryInput data = raster(v);
  const RasterInfo info = data.info(CellType::Float32);
  const std::string m = usage_error_of_data(WeightModel::Friction, data);
  testing::expect_mentions(m, {"10000000 at cell 5,0 (column,row)", "5%"});
  const WeightChoice mst = choose_weight_params(WeightModel::Friction, 0, info, Connectivity::Eight,
                                                kMstDefaultStepLimit, &data);
  EXPECT_EQ(mst.params.scale, 100.0);
  EXPECT_DOUBLE_EQ(mst.relative_error_bound, 0.005);
  // A given scale is the user's choice unless the cheapest step rounds to 0.
  EXPECT_EQ(choose_weight_params(WeightModel::Friction, 10, info, Connectivity::Eight, kSsspDefaultStepLimit, &data)
                .params.scale,
            10.0);
  EXPECT_THROW(choose_weight_params(WeightModel::Friction, 0.1, info, Connectivity::Eight, kSsspDefaultStepLimit, &data),
               UsageError);
}

TEST(WeightParams, GivenScaleThatCollapsesTheWeightsIsRefused) {
  const MemoryInput data = raster(terrain());
  const RasterInfo info = data.info(CellType::Int16);
  // Every weight rounds to 0.
  for (WeightModel model : {WeightModel::Max, WeightModel::AbsDiff, WeightModel::Friction}) {
    try {
      choose_weight_params(model, 1e-5, info, Connectivity::Eight, kSsspDefaultStepLimit, &data);
      ADD_FAILURE() << "accepted --scale 1e-5";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--scale 1e-05"), std::string::npos) << e.what();
    }
  }
  // Steps of a few units at scale 0.01: most round to 0 (the scan).
  EXPECT_THROW(choose_weight_params(WeightModel::AbsDiff, 0.01, info, Connectivity::Eight, kMstDefaultStepLimit, &data),
               UsageError);
  // Without the data there is no scan: the statistics alone cannot see it.
  EXPECT_EQ(choose_weight_params(WeightModel::AbsDiff, 0.01, info, Connectivity::Eight, kMstDefaultStepLimit).params.scale,
            0.01);
}

TEST(WeightParams, ErrorBoundsOfTheChoice) {
  const MemoryInput data = raster(terrain());
  const WeightChoice f = choose_weight_params(WeightModel::Friction, 0, data.info(CellType::Float32),
                                              Connectivity::Eight, kSsspDefaultStepLimit, &data);
  const double min = data.info(CellType::Float32).min;
  EXPECT_EQ(f.step_error_bound, 0.5 / f.params.scale);
  EXPECT_DOUBLE_EQ(f.relative_error_bound, 0.5 / (f.params.scale * min));
  const WeightChoice a = choose_weight_params(WeightModel::AbsDiff, 0, data.info(CellType::Float32),
                                              Connectivity::Eight, kSsspDefaultStepLimit, &data);
  EXPECT_TRUE(std::isnan(a.relative_error_bound));  // differences can be 0: no relative bound
  const WeightChoice i = choose_weight_params(WeightModel::Max, 0, data.info(CellType::Int16), Connectivity::Eight,
                                              kMstDefaultStepLimit, &data);
  EXPECT_EQ(i.step_error_bound, 0.0);
  EXPECT_EQ(i.relative_error_bound, 0.0);
}

// The regression of the report: pysheds_dem.tif as Float64 with one cell at 1e300 made sssp choose
// scale 1e-292 and write all-zero costs with exit 0, and mst report weights 0. Both now exit 2 with one
// line naming the value, the cell and the remedies, and publish nothing.
TEST(WeightParamsCli, OutlierInARealDemExitsTwoWithOneLine) {
  testing::TempDir dir;
  RasterInfo georef;
  std::vector<double> v = testing::read_raster_values(std::string(TERRAZO_DATASETS) + "/real/pysheds_dem.tif", &georef);
  ASSERT_EQ(georef.width, 367u);
  ASSERT_FALSE(std::isnan(v[150 * 367 + 200]));
  v[150 * 367 + 200] = 1e300;
  const std::string input = dir.file("outlier.tif");
  testing::write_raster_values(input, georef.width, georef.height, v, CellType::Float64, -32768, georef);
  const std::string cost = dir.file("cost.tif"), edges = dir.file("edges.tif");
  for (const std::string& args : {"sssp -q --source 10,10 " + input + " " + cost,
                                  "sssp -q --weight absdiff --source 10,10 " + input + " " + cost,
                                  "mst -q " + input + " " + edges, "mst -q --weight friction " + input + " " + edges}) {
    const CliRun r = run_cli(args, dir);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.err;
    testing::expect_mentions(r.err, {"1e+300 at cell 200,150 (column,row)", "--scale"});
    EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
    EXPECT_FALSE(std::ifstream(cost).good());
    EXPECT_FALSE(std::ifstream(edges).good());
  }
  // The same DEM with that cell back in range runs, and --json states the scale and the error bounds.
  v[150 * 367 + 200] = 200;
  testing::write_raster_values(input, georef.width, georef.height, v, CellType::Float64, -32768, georef);
  const std::string json = dir.file("out.json");
  ASSERT_EQ(std::system((std::string(TERRAZO_BINARY) + " sssp -q --json --source 10,10 " + input + " " + cost + " > " +
                         json).c_str()),
            0);
  std::ifstream f(json);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  testing::expect_mentions(text, {"\"scale\":1e+06", "\"step_error_bound\":5e-07", "\"relative_error_bound\":3.4013"});
}
}  // namespace
}  // namespace terrazo
