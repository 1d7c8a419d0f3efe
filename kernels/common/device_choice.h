// kernels/common/device_choice.h: the device a run asks for (--device auto|cpu|cuda), parsed once
// from its text, and the one place that resolves it to the device the run uses.
//
// Contract: parse_device_request is the only reader of the flag's text (UsageError naming --device
// otherwise); resolve_device is the only place that asks whether a GPU is there. Cuda asked for
// without a device is an Error giving the reason (kernels/common/cuda_device.h); Auto takes the GPU
// when there is one and the run can use it (`gpu_useful`), else the CPU.
#pragma once
#include <string>

#include "kernels/common/batch_solver.h"
#include "kernels/common/memory_budget.h"

namespace terrazo {

enum class DeviceRequest { Auto, Cpu, Cuda };

DeviceRequest parse_device_request(const std::string& text);
const char* device_request_name(DeviceRequest request);  // "auto" | "cpu" | "cuda"

Device resolve_device(DeviceRequest request, bool gpu_useful = true);

// Host memory the CUDA driver and the device's primary context hold once made, outside every
// reservation: VmRSS grew by 7 MiB at the driver's initialisation and 96 MiB at the context's on the
// H200 (driver 580, CUDA 13; docs/memory_budget.md "The GPU's host memory"), rounded up.
constexpr std::uint64_t kCudaHostBytes = 112ull << 20;

// What a run on `device` holds of the budget for the device's own host memory, for the whole run:
// kCudaHostBytes on the GPU, nothing on the CPU. A budget that cannot hold it is a BudgetError.
MemoryBudget::Reservation reserve_device_host_memory(Device device, MemoryBudget& budget);

// "cpu", or "cuda (<device name>)": the device line of a command's summary.
std::string device_description(Device device);

}  // namespace terrazo
