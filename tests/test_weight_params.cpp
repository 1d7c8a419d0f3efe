// tests/test_weight_params.cpp: the one weight rule of api/weight_params.h (docs/weights.md): the
// default scale of each pipeline against a brute-force search over the powers of 10, scale 1 for
// exact integer weights, the offset of the max model, the refusals (friction on negative costs exit 2
// in mst and sssp alike, a --scale that overflows), and the error bound reported with the scale.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/weight_params.h"
#include "core/error.h"
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
      const WeightChoice w = choose_weight_params(model, 0, stats(CellType::Float32, min, max), c, limit);
      EXPECT_EQ(w.params.scale, brute_force_power_of_ten(L, limit)) << L << " " << limit;
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
  EXPECT_NE(overflow.find("--scale"), std::string::npos) << overflow;
  EXPECT_NE(overflow.find("2147483.647"), std::string::npos) << overflow;
  for (double bad : {-1.0, std::numeric_limits<double>::infinity(), std::nan("")})
    EXPECT_NE(usage_error_of(WeightModel::Max, bad, info, kMstDefaultStepLimit).find("--scale"), std::string::npos);
}

TEST(WeightParams, NegativeFrictionIsAUsageErrorInEveryPipeline) {
  const RasterInfo info = stats(CellType::Float32, -2, 10);
  for (double limit : {kMstDefaultStepLimit, kSsspDefaultStepLimit}) {
    const std::string message = usage_error_of(WeightModel::Friction, 0, info, limit);
    EXPECT_NE(message.find("non-negative"), std::string::npos) << message;
    EXPECT_NE(message.find("-2"), std::string::npos) << message;
  }
  // absdiff and max take negative values.
  EXPECT_EQ(usage_error_of(WeightModel::AbsDiff, 0, info, kMstDefaultStepLimit), "");
  EXPECT_EQ(usage_error_of(WeightModel::Max, 0, info, kSsspDefaultStepLimit), "");
}

struct CliRun {
  int code = -1;
  std::string err;
};

CliRun run_cli(const std::string& arguments, const testing::TempDir& dir) {
  const std::string err = dir.file("stderr.txt");
  const std::string command = std::string(TERRAZO_BINARY) + " " + arguments + " > /dev/null 2> " + err;
  const int status = std::system(command.c_str());
  std::ifstream f(err);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

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

}  // namespace
}  // namespace terrazo
