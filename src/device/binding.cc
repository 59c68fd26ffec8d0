#include "device/binding.h"

#include <cstdlib>
#include <string>

#include "comm/comm.h"
#include "core/log.h"
#include "core/params.h"

namespace weft::device {

const char* const kLocalRankVars[7] = {"OMPI_COMM_WORLD_LOCAL_RANK",
                                       "MPI_LOCALRANKID",
                                       "MV2_COMM_WORLD_LOCAL_RANK",
                                       "SLURM_LOCALID",
                                       "PMI_LOCAL_RANK",
                                       "PALS_LOCAL_RANKID",
                                       "FLUX_TASK_LOCAL_ID"};

int LocalRankHint(const char** var) {
  for (const char* v : kLocalRankVars) {
    const char* s = std::getenv(v);
    if (s == nullptr || *s == '\0') continue;
    char* end = nullptr;
    long r = std::strtol(s, &end, 10);
    if (*end != '\0' || r < 0) continue;
    if (var != nullptr) *var = v;
    return static_cast<int>(r);
  }
  return -1;
}

Status ParseDeviceList(const std::string& text, int count, std::vector<int>* out) {
  out->clear();
  if (text.empty()) {
    for (int d = 0; d < count; ++d) out->push_back(d);
    return weftSuccess;
  }
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long d = item.empty() ? -1 : std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || d < 0) {
      return FailNoComm(weftInvalidArgument, "WEFT_DEVICES=%s: '%s' is not a device id",
                        text.c_str(), item.c_str());
    }
    if (d >= count) {
      return FailNoComm(weftInvalidArgument,
                        "WEFT_DEVICES=%s: device %ld does not exist (the backend has %d)",
                        text.c_str(), d, count);
    }
    out->push_back(static_cast<int>(d));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return weftSuccess;
}

Status ChooseDevice(int count, const std::string& list_text, int local_rank, int local_size,
                    Binding* out) {
  std::vector<int> list;
  WEFT_CHECK(ParseDeviceList(list_text, count, &list));
  if (list.empty()) return FailNoComm(weftInvalidArgument, "no device to bind to");
  out->local_rank = local_rank;
  out->local_size = local_size;
  out->device = list[local_rank % list.size()];
  out->how = "local rank " + std::to_string(local_rank) + " of " + std::to_string(local_size) +
             (list_text.empty() ? "" : ", WEFT_DEVICES=" + list_text);
  if (static_cast<size_t>(local_size) > list.size()) {
    WEFT_WARN(kDevice, "%d ranks on this node share %zu device(s): local rank %d uses device %d",
              local_size, list.size(), local_rank, out->device);
    out->how += " (shared: more ranks than devices)";
  }
  return weftSuccess;
}

Status BindDevice(MPI_Comm comm, Backend* backend, Binding* out) {
  *out = Binding{};
  if (backend->DeviceCount() == 0) {
    out->how = std::string("backend ") + backend->name() + " has no devices";
    return weftSuccess;
  }
  MPI_Comm machine = MPI_COMM_NULL;
  int err = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &machine);
  if (err != MPI_SUCCESS) return FailNoComm(weftMpiError, "device binding: MPI_Comm_split_type");
  int local_rank = 0, local_size = 1;
  PMPI_Comm_rank(machine, &local_rank);
  PMPI_Comm_size(machine, &local_size);
  PMPI_Comm_free(&machine);
  WEFT_CHECK(
      ChooseDevice(backend->DeviceCount(), GetParams().WEFT_DEVICES, local_rank, local_size, out));
  const char* var = nullptr;
  int hint = LocalRankHint(&var);
  if (hint >= 0 && hint != local_rank) {
    // The hint counts ranks of the whole job on this machine; a sub-communicator differs.
    out->how += std::string(" (launcher ") + var + "=" + std::to_string(hint) + " differs)";
  }
  WEFT_CHECK(backend->SetDevice(out->device));
  WEFT_INFO(kDevice, "bound to %s device %d: %s", backend->name(), out->device, out->how.c_str());
  return weftSuccess;
}

}  // namespace weft::device
