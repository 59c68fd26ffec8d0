// Driving the MPI library's own progress from inside weft's waits. A nonblocking MPI call
// (the application's, or one the interposer left to MPI) advances only inside MPI calls: its
// peer, blocked in MPI on it, waits for this rank's MPI to take the next step. A rank waiting
// in weft on shared memory makes no MPI call for as long as the wait lasts, so long waits poke
// MPI's progress engine (MPI requires a blocked call to advance every pending operation).
#pragma once

namespace weft {

/// Runs MPI's progress engine once, without waiting. Does nothing before MPI_Init, after
/// MPI_Finalize, or off the main thread below MPI_THREAD_SERIALIZED.
void PokeMpiProgress();

}  // namespace weft
