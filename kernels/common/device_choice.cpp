// kernels/common/device_choice.cpp: --device parsed once and resolved in one place (device_choice.h).
#include "kernels/common/device_choice.h"

#include "kernels/common/cuda_device.h"
#include "kernels/common/enum_names.h"
#include "kernels/common/error.h"

namespace terrazo {

namespace {
constexpr EnumName<DeviceRequest> kDeviceRequestNames[] = {
    {DeviceRequest::Auto, "auto"}, {DeviceRequest::Cpu, "cpu"}, {DeviceRequest::Cuda, "cuda"}};
}  // namespace

DeviceRequest parse_device_request(const std::string& text) { return parse_named(kDeviceRequestNames, "--device", text); }

const char* device_request_name(DeviceRequest request) { return name_of(kDeviceRequestNames, request, "auto"); }

Device resolve_device(DeviceRequest request, bool gpu_useful) {
  switch (request) {
    case DeviceRequest::Cpu: return Device::Cpu;
    case DeviceRequest::Cuda:
      if (!cuda_device().available) throw Error("--device cuda: " + cuda_device().reason);
      return Device::Cuda;
    case DeviceRequest::Auto: break;
  }
  return gpu_useful && cuda_device().available ? Device::Cuda : Device::Cpu;
}

MemoryBudget::Reservation reserve_device_host_memory(Device device, MemoryBudget& budget) {
  if (device != Device::Cuda) return {};
  return budget.reserve(kCudaHostBytes, "CUDA driver and context (host memory)");
}

std::string device_description(Device device) {
  return device == Device::Cuda ? "cuda (" + cuda_device().name + ")" : "cpu";
}

}  // namespace terrazo
