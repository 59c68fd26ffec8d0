// Which device a rank uses: the rank's place on its node (from the node communicator), the
// launcher's local-rank variables as an early hint before any communicator exists, and
// WEFT_DEVICES as an explicit list. Pure choices are separate from the MPI step so tests can
// drive them.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "core/status.h"
#include "device/backend.h"

namespace weft::device {

/// A rank's device and how it was chosen (for the INFO line and weftCommDevice).
struct Binding {
  int device = -1;  // -1: host backend, no device
  int local_rank = 0, local_size = 1;
  std::string how;
};

/// The launchers' local-rank variables, in the order LocalRankHint reads them.
extern const char* const kLocalRankVars[7];
/// The launcher's local rank: the first set of OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID,
/// MV2_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, PMI_LOCAL_RANK, PALS_LOCAL_RANKID,
/// FLUX_TASK_LOCAL_ID; -1 if none is. *var names the variable used.
int LocalRankHint(const char** var = nullptr);
/// Parses a WEFT_DEVICES list ("0,2") against a backend with `count` devices; an empty text
/// means every device. Fails with weftInvalidArgument on bad text or an id >= count.
Status ParseDeviceList(const std::string& text, int count, std::vector<int>* out);
/// The device of local rank `local_rank` of `local_size`: list[local_rank % list size], with
/// a WARN when ranks outnumber devices.
Status ChooseDevice(int count, const std::string& list_text, int local_rank, int local_size,
                    Binding* out);
/// Collective over comm: finds this rank's place among the ranks of its machine (not of a
/// virtual node), chooses its device and makes it current.
Status BindDevice(MPI_Comm comm, Backend* backend, Binding* out);

}  // namespace weft::device
