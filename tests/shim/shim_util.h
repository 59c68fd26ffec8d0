/* Helpers for the interposer's test programs. They use mpi.h only: the same binary runs
 * natively and under libweft_mpi.so, and the two outputs must be identical. Each check prints
 * one line on rank 0: the name and a hash of every rank's result. */
#ifndef WEFT_SHIM_UTIL_H_
#define WEFT_SHIM_UTIL_H_

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t Fnv(const void* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ ((const unsigned char*)p)[i]) * 1099511628211ull;
  return h;
}

/* Prints "name: h0 h1 ..." on rank 0 (hashes of each rank's bytes). */
static void Report(MPI_Comm comm, const char* name, const void* p, size_t bytes) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  uint64_t h = Fnv(p, bytes);
  uint64_t* all = (uint64_t*)malloc(sizeof(uint64_t) * size);
  PMPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, comm); /* not a call under test */
  if (rank == 0) {
    printf("%s:", name);
    for (int r = 0; r < size; ++r) printf(" %016llx", (unsigned long long)all[r]);
    printf("\n");
    fflush(stdout);
  }
  free(all);
}

#endif
