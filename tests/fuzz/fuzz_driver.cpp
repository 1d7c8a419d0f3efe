// tests/fuzz/fuzz_driver.cpp: runs a fuzz target without libFuzzer (the CI build: GCC, no clang),
// deterministically. Usage: fuzz_<target> [-runs=N] [-seed=S] [-max_len=L] CORPUS_DIR_OR_FILE...
// Every corpus file is run as it is, then N inputs made by mutating corpus files with a fixed
// xorshift generator (bit flips, random and "interesting" bytes, inserted, erased and repeated
// spans, splices of two files), each run through LLVMFuzzerTestOneInput. Same N and S, same inputs.
// A crash, sanitizer report or escaping exception ends the process (ctest: failed); the input is
// written to ./fuzz-crash-<target> first, so it can be replayed (fuzz_<target> fuzz-crash-<target>).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::uint64_t state = 0x9e3779b97f4a7c15ull;
std::uint64_t next() {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}
std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }

const std::vector<std::uint8_t>* current = nullptr;
std::string crash_file;

void save_current() {
  if (!current) return;
  if (std::FILE* f = std::fopen(crash_file.c_str(), "wb")) {
    if (!current->empty()) std::fwrite(current->data(), 1, current->size(), f);
    std::fclose(f);
    std::fprintf(stderr, "fuzz driver: the failing input is in %s (%zu bytes)\n", crash_file.c_str(), current->size());
  }
}

void run(const std::vector<std::uint8_t>& input) {
  current = &input;
  LLVMFuzzerTestOneInput(input.data(), input.size());
  current = nullptr;
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> v, const std::vector<std::vector<std::uint8_t>>& corpus,
                                 std::size_t max_len) {
  static const std::uint8_t interesting[] = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-', '.', 'e', ' ', '\n', 0xfe};
  const int count = 1 + static_cast<int>(below(8));
  for (int m = 0; m < count; ++m) {
    switch (below(8)) {
      case 0:
        if (!v.empty()) v[below(v.size())] ^= static_cast<std::uint8_t>(1u << below(8));
        break;
      case 1:
        if (!v.empty()) v[below(v.size())] = static_cast<std::uint8_t>(next());
        break;
      case 2:
        if (!v.empty()) v[below(v.size())] = interesting[below(sizeof interesting)];
        break;
      case 3: {  // insert a few bytes
        const std::size_t at = below(v.size() + 1), n = 1 + below(8);
        std::vector<std::uint8_t> bytes(n);
        for (auto& b : bytes) b = below(2) ? interesting[below(sizeof interesting)] : static_cast<std::uint8_t>(next());
        v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), bytes.begin(), bytes.end());
        break;
      }
      case 4:  // erase a span
        if (!v.empty()) {
          const std::size_t at = below(v.size()), n = 1 + below(std::min<std::size_t>(16, v.size() - at));
          v.erase(v.begin() + static_cast<std::ptrdiff_t>(at), v.begin() + static_cast<std::ptrdiff_t>(at + n));
        }
        break;
      case 5:  // repeat a span
        if (!v.empty()) {
          const std::size_t at = below(v.size()), n = 1 + below(std::min<std::size_t>(32, v.size() - at));
          std::vector<std::uint8_t> span(v.begin() + static_cast<std::ptrdiff_t>(at),
                                         v.begin() + static_cast<std::ptrdiff_t>(at + n));
          v.insert(v.begin() + static_cast<std::ptrdiff_t>(below(v.size() + 1)), span.begin(), span.end());
        }
        break;
      case 6: {  // splice: our head, another file's tail
        const auto& other = corpus[below(corpus.size())];
        const std::size_t cut = below(v.size() + 1), from = below(other.size() + 1);
        v.resize(cut);
        v.insert(v.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
      default:  // truncate
        v.resize(below(v.size() + 1));
        break;
    }
  }
  if (v.size() > max_len) v.resize(max_len);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t runs = 1000, seed = 1;
  std::size_t max_len = 1 << 16;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("-runs=", 0) == 0) {
      runs = std::strtoull(arg.c_str() + 6, nullptr, 10);
    } else if (arg.rfind("-seed=", 0) == 0) {
      seed = std::strtoull(arg.c_str() + 6, nullptr, 10);
    } else if (arg.rfind("-max_len=", 0) == 0) {
      max_len = std::strtoull(arg.c_str() + 9, nullptr, 10);
    } else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "fuzz driver: '%s' is neither a corpus directory, a file nor -runs=/-seed=/-max_len=\n", arg.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  std::vector<std::vector<std::uint8_t>> corpus;
  for (const auto& path : files) {
    std::ifstream f(path, std::ios::binary);
    corpus.emplace_back(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) corpus.emplace_back();
  crash_file = "fuzz-crash-" + std::filesystem::path(argv[0]).filename().string();
  std::set_terminate([] {
    save_current();
    std::fprintf(stderr, "fuzz driver: an exception escaped the target\n");
    std::abort();
  });
  state ^= seed * 0xbf58476d1ce4e5b9ull;
  for (const auto& input : corpus) run(input);
  for (std::uint64_t i = 0; i < runs; ++i) run(mutate(corpus[below(corpus.size())], corpus, max_len));
  std::printf("fuzz driver: %zu corpus inputs and %llu mutations (seed %llu) ran clean\n", corpus.size(),
              static_cast<unsigned long long>(runs), static_cast<unsigned long long>(seed));
  return 0;
}
