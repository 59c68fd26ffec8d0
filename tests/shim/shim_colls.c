/* Every intercepted collective, over every predefined type weft maps and every op it serves,
 * in place and out of place, at every root. Inputs stay inside the range where both Open MPI
 * and MPICH compute correctly (small non-negative values: no int8 overflow, no sign bit in
 * unsigned Max/Min), so native and interposed outputs must match exactly. */
#include <string.h>

#include "shim_util.h"

typedef struct {
  MPI_Datatype type;
  const char* name;
  int size;
  int is_float;
} Type;

static void Fill(const Type* t, void* p, int n, int rank, int salt, MPI_Op op) {
  for (int i = 0; i < n; ++i) {
    int v = (op == MPI_PROD) ? 1 + ((i + rank + salt) % 2) : (i * 7 + rank * 3 + salt) % 16;
    char* e = (char*)p + (size_t)i * t->size;
    if (t->is_float && t->size == 4)
      *(float*)e = v / 4.0f;
    else if (t->is_float)
      *(double*)e = v / 4.0;
    else if (t->size == 1)
      *(int8_t*)e = (int8_t)v;
    else if (t->size == 4)
      *(int32_t*)e = v;
    else
      *(int64_t*)e = v;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Type types[] = {
      {MPI_INT8_T, "int8", 1, 0},       {MPI_SIGNED_CHAR, "schar", 1, 0},
      {MPI_UINT8_T, "uint8", 1, 0},     {MPI_UNSIGNED_CHAR, "uchar", 1, 0},
      {MPI_INT, "int", 4, 0},           {MPI_INT32_T, "int32", 4, 0},
      {MPI_UNSIGNED, "unsigned", 4, 0}, {MPI_UINT32_T, "uint32", 4, 0},
      {MPI_LONG, "long", 8, 0},         {MPI_LONG_LONG, "longlong", 8, 0},
      {MPI_INT64_T, "int64", 8, 0},     {MPI_UNSIGNED_LONG, "ulong", 8, 0},
      {MPI_UINT64_T, "uint64", 8, 0},   {MPI_UNSIGNED_LONG_LONG, "ulonglong", 8, 0},
      {MPI_FLOAT, "float", 4, 1},       {MPI_DOUBLE, "double", 8, 1},
  };
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  const char* op_names[] = {"sum", "prod", "max", "min"};
  const int counts[] = {1, 7, 1000};
  /* MPICH 4.0.2 crashes in an in-place MPI_Reduce at a non-zero root (pmodels/mpich#6540), so
   * under MPICH this program does in-place Reduce at root 0 only: the native run must work
   * for there to be anything to compare. (weft serves all roots; tests/mp covers them.) */
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  const int mpich = strncmp(lib, "MPICH", 5) == 0;
  char name[160];
  for (size_t ti = 0; ti < sizeof(types) / sizeof(types[0]); ++ti) {
    const Type* t = &types[ti];
    for (int ci = 0; ci < 3; ++ci) {
      const int n = counts[ci];
      const size_t bytes = (size_t)n * t->size;
      char* a = malloc(bytes * size);
      char* b = malloc(bytes * size);
      for (int oi = 0; oi < 4; ++oi) {
        MPI_Op op = ops[oi];
        snprintf(name, sizeof(name), "allreduce %s %s n=%d", t->name, op_names[oi], n);
        Fill(t, a, n, rank, 1, op);
        MPI_Allreduce(a, b, n, t->type, op, MPI_COMM_WORLD);
        Report(MPI_COMM_WORLD, name, b, bytes);
        strcat(name, " inplace");
        MPI_Allreduce(MPI_IN_PLACE, a, n, t->type, op, MPI_COMM_WORLD);
        Report(MPI_COMM_WORLD, name, a, bytes);
        for (int root = 0; root < size; ++root) {
          snprintf(name, sizeof(name), "reduce %s %s n=%d root=%d", t->name, op_names[oi], n, root);
          Fill(t, a, n, rank, 2, op);
          memset(b, 0, bytes);
          MPI_Reduce(a, b, n, t->type, op, root, MPI_COMM_WORLD);
          Report(MPI_COMM_WORLD, name, b, rank == root ? bytes : 0);
          strcat(name, " inplace");
          if (mpich && root != 0) continue;
          MPI_Reduce(rank == root ? MPI_IN_PLACE : a, a, n, t->type, op, root, MPI_COMM_WORLD);
          Report(MPI_COMM_WORLD, name, a, rank == root ? bytes : 0);
        }
        snprintf(name, sizeof(name), "reduce_scatter_block %s %s n=%d", t->name, op_names[oi], n);
        Fill(t, a, n * size, rank, 3, op);
        MPI_Reduce_scatter_block(a, b, n, t->type, op, MPI_COMM_WORLD);
        Report(MPI_COMM_WORLD, name, b, bytes);
        strcat(name, " inplace");
        MPI_Reduce_scatter_block(MPI_IN_PLACE, a, n, t->type, op, MPI_COMM_WORLD);
        Report(MPI_COMM_WORLD, name, a, bytes);
        int* rc = malloc(sizeof(int) * size);
        for (int r = 0; r < size; ++r) rc[r] = n;
        snprintf(name, sizeof(name), "reduce_scatter %s %s n=%d", t->name, op_names[oi], n);
        Fill(t, a, n * size, rank, 4, op);
        MPI_Reduce_scatter(a, b, rc, t->type, op, MPI_COMM_WORLD);
        Report(MPI_COMM_WORLD, name, b, bytes);
        free(rc);
      }
      for (int root = 0; root < size; ++root) {
        snprintf(name, sizeof(name), "bcast %s n=%d root=%d", t->name, n, root);
        Fill(t, a, n, rank, 5 + root, MPI_SUM);
        MPI_Bcast(a, n, t->type, root, MPI_COMM_WORLD);
        Report(MPI_COMM_WORLD, name, a, bytes);
      }
      snprintf(name, sizeof(name), "allgather %s n=%d", t->name, n);
      Fill(t, a, n, rank, 6, MPI_SUM);
      MPI_Allgather(a, n, t->type, b, n, t->type, MPI_COMM_WORLD);
      Report(MPI_COMM_WORLD, name, b, bytes * size);
      strcat(name, " inplace");
      Fill(t, b + rank * bytes, n, rank, 7, MPI_SUM);
      MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, n, t->type, MPI_COMM_WORLD);
      Report(MPI_COMM_WORLD, name, b, bytes * size);
      snprintf(name, sizeof(name), "alltoall %s n=%d", t->name, n);
      Fill(t, a, n * size, rank, 8, MPI_SUM);
      MPI_Alltoall(a, n, t->type, b, n, t->type, MPI_COMM_WORLD);
      Report(MPI_COMM_WORLD, name, b, bytes * size);
      strcat(name, " inplace");
      MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, t->type, MPI_COMM_WORLD);
      Report(MPI_COMM_WORLD, name, a, bytes * size);
      free(a);
      free(b);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("barrier: done\n");
  MPI_Finalize();
  return 0;
}
