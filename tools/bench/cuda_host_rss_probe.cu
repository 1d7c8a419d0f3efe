// tools/bench/cuda_host_rss_probe.cu: the host memory (VmRSS) that the CUDA driver's initialisation, the
// primary context, the first kernel and 64 MiB of pinned memory take (docs/memory_budget.md "The GPU's host
// memory"). On the GPU machine: nvcc -O2 -arch=sm_90 -o probe cuda_host_rss_probe.cu && ./probe
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
static long rss_kib() {
  FILE* f = std::fopen("/proc/self/status", "r"); char line[256]; long v = -1;
  while (std::fgets(line, sizeof line, f)) if (!std::strncmp(line, "VmRSS:", 6)) v = std::atol(line + 6);
  std::fclose(f); return v;
}
__global__ void touch(int* p) { if (p) *p = 1; }
int main() {
  long a = rss_kib(); int n = 0; cudaGetDeviceCount(&n); long b = rss_kib();
  cudaFree(nullptr); long c = rss_kib();
  touch<<<1, 1>>>(nullptr); cudaDeviceSynchronize(); long d = rss_kib();
  void* h = nullptr; cudaHostAlloc(&h, 64 << 20, cudaHostAllocDefault); long e = rss_kib();
  std::printf("rss KiB: start %ld, after cuInit %ld (+%ld), after context %ld (+%ld), after first kernel %ld (+%ld), after 64 MiB pinned %ld (+%ld)\n",
              a, b, b - a, c, c - b, d, d - c, e, e - d);
}
