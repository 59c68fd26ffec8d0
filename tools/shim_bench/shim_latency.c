/* OSU-style latency of every collective the interposer serves (allreduce, reduce_scatter_block,
 * reduce_scatter, alltoall, alltoallv, allgather, allgatherv, bcast, reduce, gather, scatter,
 * the v-forms with skewed counts (rank 0's block twice the others'), scan, exscan, barrier, and
 * MPI_Iallreduce + MPI_Wait), native and interposed in the same run, on one reused
 * buffer as OSU measures: run it under weftrun, and each MPI_X call goes through weft's
 * interposer while the matching PMPI_X call is the library's own routine. Also measures the
 * interposer's cost on a fallback path (a user-defined op, which weft hands to the native routine).
 * Plain MPI: run without weftrun, both columns are native. weftrun -n 2 weft-shim-latency
 * [max_bytes] [iterations] */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*Coll)(void* s, void* r, int n, MPI_Comm c, int native);

static int Allreduce(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, c)
                : MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, c);
}
static int ReduceScatter(void* s, void* r, int n, MPI_Comm c, int native) {
  int size;
  MPI_Comm_size(c, &size);
  n /= size;
  return native ? PMPI_Reduce_scatter_block(s, r, n, MPI_DOUBLE, MPI_SUM, c)
                : MPI_Reduce_scatter_block(s, r, n, MPI_DOUBLE, MPI_SUM, c);
}
static int Alltoall(void* s, void* r, int n, MPI_Comm c, int native) {
  int size;
  MPI_Comm_size(c, &size);
  n /= size;
  return native ? PMPI_Alltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, c)
                : MPI_Alltoall(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, c);
}

static int Allgather(void* s, void* r, int n, MPI_Comm c, int native) {
  int size;
  MPI_Comm_size(c, &size);
  n /= size;
  return native ? PMPI_Allgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, c)
                : MPI_Allgather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, c);
}

/* Equal counts, blocks in rank order: what the interposer serves as an allgather. */
static int Allgatherv(void* s, void* r, int n, MPI_Comm c, int native) {
  static int counts[1024], displs[1024];
  int size;
  MPI_Comm_size(c, &size);
  n /= size;
  for (int j = 0; j < size && j < 1024; ++j) {
    counts[j] = n;
    displs[j] = j * n;
  }
  return native ? PMPI_Allgatherv(s, n, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c)
                : MPI_Allgatherv(s, n, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
}

static int ReduceScatterEqual(void* s, void* r, int n, MPI_Comm c, int native) {
  static int counts[1024];
  int size;
  MPI_Comm_size(c, &size);
  for (int j = 0; j < size && j < 1024; ++j) counts[j] = n / size;
  return native ? PMPI_Reduce_scatter(s, r, counts, MPI_DOUBLE, MPI_SUM, c)
                : MPI_Reduce_scatter(s, r, counts, MPI_DOUBLE, MPI_SUM, c);
}

/* Skewed counts, the same total shape at every size: rank 0's block twice the others'. What the
 * interposer serves as a v-collective (unequal blocks). */
static int* SkewedCounts(int n, int size, int* displs) {
  static int counts[1024];
  const int block = n / size;
  int at = 0;
  for (int j = 0; j < size && j < 1024; ++j) {
    counts[j] = j == 0 ? 2 * block : block;
    if (displs) displs[j] = at;
    at += counts[j];
  }
  return counts;
}

static int AllgathervSkewed(void* s, void* r, int n, MPI_Comm c, int native) {
  static int displs[1024];
  int size, rank;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  int* counts = SkewedCounts(n, size, displs);
  return native ? PMPI_Allgatherv(s, counts[rank], MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c)
                : MPI_Allgatherv(s, counts[rank], MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
}

static int ReduceScatterSkewed(void* s, void* r, int n, MPI_Comm c, int native) {
  int size;
  MPI_Comm_size(c, &size);
  int* counts = SkewedCounts(n, size, NULL);
  return native ? PMPI_Reduce_scatter(s, r, counts, MPI_DOUBLE, MPI_SUM, c)
                : MPI_Reduce_scatter(s, r, counts, MPI_DOUBLE, MPI_SUM, c);
}

static int GathervSkewed(void* s, void* r, int n, MPI_Comm c, int native) {
  static int displs[1024];
  int size, rank;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  int* counts = SkewedCounts(n * size, size, displs);
  return native ? PMPI_Gatherv(s, counts[rank], MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, 0, c)
                : MPI_Gatherv(s, counts[rank], MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, 0, c);
}

static int ScattervSkewed(void* s, void* r, int n, MPI_Comm c, int native) {
  static int displs[1024];
  int size, rank;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  int* counts = SkewedCounts(n * size, size, displs);
  return native ? PMPI_Scatterv(s, counts, displs, MPI_DOUBLE, r, counts[rank], MPI_DOUBLE, 0, c)
                : MPI_Scatterv(s, counts, displs, MPI_DOUBLE, r, counts[rank], MPI_DOUBLE, 0, c);
}

static int Scan(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Scan(s, r, n, MPI_DOUBLE, MPI_SUM, c)
                : MPI_Scan(s, r, n, MPI_DOUBLE, MPI_SUM, c);
}

static int Exscan(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Exscan(s, r, n, MPI_DOUBLE, MPI_SUM, c)
                : MPI_Exscan(s, r, n, MPI_DOUBLE, MPI_SUM, c);
}

static int Alltoallv(void* s, void* r, int n, MPI_Comm c, int native) {
  static int counts[1024], displs[1024];
  int size;
  MPI_Comm_size(c, &size);
  for (int j = 0; j < size && j < 1024; ++j) {
    counts[j] = n / size;
    displs[j] = j * (n / size);
  }
  return native ? PMPI_Alltoallv(s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c)
                : MPI_Alltoallv(s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE, c);
}

static int Bcast(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Bcast(s, n, MPI_DOUBLE, 0, c) : MPI_Bcast(s, n, MPI_DOUBLE, 0, c);
}

static int Reduce(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Reduce(s, r, n, MPI_DOUBLE, MPI_SUM, 0, c)
                : MPI_Reduce(s, r, n, MPI_DOUBLE, MPI_SUM, 0, c);
}

static int Gather(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Gather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, 0, c)
                : MPI_Gather(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, 0, c);
}

static int Scatter(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Scatter(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, 0, c)
                : MPI_Scatter(s, n, MPI_DOUBLE, r, n, MPI_DOUBLE, 0, c);
}

static int Barrier(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Barrier(c) : MPI_Barrier(c);
}

static int Iallreduce(void* s, void* r, int n, MPI_Comm c, int native) {
  MPI_Request q;
  if (native) {
    PMPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, c, &q);
    return PMPI_Wait(&q, MPI_STATUS_IGNORE);
  }
  MPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, c, &q);
  return MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* What the interposer's completion calls cost a program whose requests weft does not serve:
 * MPI_Test on a native receive that never completes (it polls MPI's progress each time). */
static MPI_Request g_pending;
static int TestPending(void* s, void* r, int n, MPI_Comm c, int native) {
  int flag = 0;
  for (int i = 0; i < 100; ++i) {
    if (native)
      PMPI_Test(&g_pending, &flag, MPI_STATUS_IGNORE);
    else
      MPI_Test(&g_pending, &flag, MPI_STATUS_IGNORE);
  }
  return flag;
}

static void UserSum(void* in, void* inout, int* len, MPI_Datatype* t) {
  for (int i = 0; i < *len; ++i) ((double*)inout)[i] += ((double*)in)[i];
}
static MPI_Op g_user_op;
static int UserOpAllreduce(void* s, void* r, int n, MPI_Comm c, int native) {
  return native ? PMPI_Allreduce(s, r, n, MPI_DOUBLE, g_user_op, c)
                : MPI_Allreduce(s, r, n, MPI_DOUBLE, g_user_op, c);
}

/* Average microseconds per call over iters calls (after a barrier), slowest rank. */
static double Time(Coll f, void* s, void* r, int n, int iters, int native) {
  PMPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) f(s, r, n, MPI_COMM_WORLD, native);
  double us = (MPI_Wtime() - t0) * 1e6 / iters, max = 0;
  PMPI_Allreduce(&us, &max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return max;
}

/* Median of 5 interleaved rounds, so drift falls on both sides alike. */
static void Measure(Coll f, void* s, void* r, int n, int iters, double* native, double* shim) {
  double a[5], b[5];
  for (int k = 0; k < 5; ++k) {
    a[k] = Time(f, s, r, n, iters, 1);
    b[k] = Time(f, s, r, n, iters, 0);
  }
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) {
      if (a[j] < a[i]) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
      }
      if (b[j] < b[i]) {
        double t = b[i];
        b[i] = b[j];
        b[j] = t;
      }
    }
  *native = a[2];
  *shim = b[2];
}

int main(int argc, char** argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf(
        "usage: weftrun -n 2 weft-shim-latency [MAX_BYTES [ITERS]]\n"
        "  OSU-style latency of the collectives through weft's interposer and natively (PMPI)\n"
        "  in the same run, up to MAX_BYTES per rank (default 1 MiB), ITERS calls per size at\n"
        "  8 B (default 1000; fewer at larger sizes)\n");
    return 0;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t max_bytes = argc > 1 ? strtoul(argv[1], NULL, 0) : (1u << 20);
  const int base_iters = argc > 2 ? atoi(argv[2]) : 1000;
  const int interposed = dlsym(RTLD_DEFAULT, "weftAllReduce") != NULL;
  double* s = malloc(max_bytes * (size + 1) + 64);
  double* r = malloc(max_bytes * (size + 1) + 64);
  for (size_t i = 0; i < max_bytes * (size + 1) / sizeof(double); ++i) s[i] = 1.0;
  MPI_Op_create(UserSum, 1, &g_user_op);
  if (rank == 0) {
    printf(
        "# weft-shim-latency: %d ranks; interposer %s; average us per call (median of 5 rounds),\n",
        size, interposed ? "loaded (MPI_X = weft, PMPI_X = native)" : "NOT loaded (both native)");
    printf(
        "# slowest rank; bytes = per-rank send buffer of doubles (the v-forms: the equal "
        "form's)\n");
    printf("%-24s %10s %12s %12s %8s\n", "# collective", "bytes", "native_us", "shim_us", "n/s");
  }
  /* sized: whether the call moves data (a barrier has one row). */
  const struct {
    const char* name;
    Coll f;
    int sized;
  } colls[] = {{"MPI_Allreduce", Allreduce, 1},
               {"MPI_Reduce_scatter_block", ReduceScatter, 1},
               {"MPI_Reduce_scatter", ReduceScatterEqual, 1},
               {"MPI_Alltoall", Alltoall, 1},
               {"MPI_Alltoallv", Alltoallv, 1},
               {"MPI_Allgather", Allgather, 1},
               {"MPI_Allgatherv", Allgatherv, 1},
               {"MPI_Allgatherv(skew)", AllgathervSkewed, 1},
               {"MPI_Reduce_scatter(skew)", ReduceScatterSkewed, 1},
               {"MPI_Gatherv(skew)", GathervSkewed, 1},
               {"MPI_Scatterv(skew)", ScattervSkewed, 1},
               {"MPI_Scan", Scan, 1},
               {"MPI_Exscan", Exscan, 1},
               {"MPI_Bcast", Bcast, 1},
               {"MPI_Reduce", Reduce, 1},
               {"MPI_Gather", Gather, 1},
               {"MPI_Scatter", Scatter, 1},
               {"MPI_Barrier", Barrier, 0},
               {"MPI_Iallreduce+Wait", Iallreduce, 1}};
  /* First, before any request weft serves exists: the native requests' completion cost. */
  int never = 0;
  PMPI_Irecv(&never, 1, MPI_INT, 0, 4242, MPI_COMM_SELF, &g_pending);
  double test_nat, test_shim;
  Measure(TestPending, s, r, 1, base_iters * 10, &test_nat, &test_shim);
  PMPI_Cancel(&g_pending);
  PMPI_Wait(&g_pending, MPI_STATUS_IGNORE);
  if (rank == 0) {
    printf(
        "# MPI_Test on a pending native request (no request weft serves): native %.4f us, "
        "interposed %.4f us per call\n",
        test_nat / 100, test_shim / 100);
  }
  for (int c = 0; c < (int)(sizeof colls / sizeof colls[0]); ++c) {
    for (size_t bytes = 8 * size; bytes <= (colls[c].sized ? max_bytes : 8 * size); bytes *= 4) {
      int n = (int)(bytes / sizeof(double));
      int iters = bytes > 65536 ? base_iters / 10 + 1 : base_iters;
      double nat, shim;
      Measure(colls[c].f, s, r, n, iters, &nat, &shim);
      if (rank == 0)
        printf("%-24s %10zu %12.2f %12.2f %7.2fx\n", colls[c].name, bytes, nat, shim, nat / shim);
    }
  }
  /* Fallback path: weft hands a user-defined op to the native routine. */
  double nat, shim;
  Measure(UserOpAllreduce, s, r, 1, base_iters * 10, &nat, &shim);
  if (rank == 0) {
    printf(
        "# fallback (MPI_Allreduce, 8 B, user-defined op): native %.3f us, interposed %.3f us, "
        "overhead %.3f us per call\n",
        nat, shim, shim - nat);
    fflush(stdout);
  }
  MPI_Op_free(&g_user_op);
  free(s);
  free(r);
  MPI_Finalize();
  return 0;
}
