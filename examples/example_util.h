/* Small helpers shared by the examples: a CHECK macro that prints weft's error text, and the
 * verdict every example ends with (all ranks must agree that the result is correct). */
#ifndef WEFT_EXAMPLE_UTIL_H_
#define WEFT_EXAMPLE_UTIL_H_

#include <mpi.h>
#include <stdio.h>
#include <weft/weft.h>

#define CHECK(call, comm)                                                      \
  do {                                                                         \
    weftResult_t r_ = (call);                                                  \
    if (r_ != weftSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s failed: %s: %s\n", __FILE__, __LINE__, #call, \
              weftGetErrorString(r_), weftGetLastError(comm));                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

/* MPI_Init, then a weft communicator over MPI_COMM_WORLD with this rank and the rank count. */
static weftComm_t ExampleInit(int* argc, char*** argv, int* rank, int* size) {
  MPI_Init(argc, argv);
  weftComm_t comm;
  CHECK(weftCommInitMPI(&comm, MPI_COMM_WORLD), NULL);
  CHECK(weftCommUserRank(comm, rank), comm);
  CHECK(weftCommCount(comm, size), comm);
  return comm;
}

/* Prints "Correct: YES" or "Correct: NO" on rank 0 and returns the exit code. */
static int Verdict(int my_ok) {
  int all_ok = 0, rank = 0;
  MPI_Allreduce(&my_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("Correct: %s\n", all_ok ? "YES" : "NO");
  return all_ok ? 0 : 1;
}

/* Destroys the communicator, prints the verdict, finalizes MPI; returns the exit code. */
static int ExampleFinish(weftComm_t comm, int my_ok) {
  CHECK(weftCommDestroy(comm), NULL);
  int rc = Verdict(my_ok);
  MPI_Finalize();
  return rc;
}

#endif
