/* Calls weft must hand to the native routine: derived and pair datatypes, user-defined and
 * MINLOC/logical ops, types weft lacks, uneven Reduce_scatter, inter-communicators. The
 * results must match native exactly. */
#include <string.h>

#include "shim_util.h"

static void MySum(void* in, void* inout, int* len, MPI_Datatype* t) {
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i] * 2;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int a[64], b[64 * 8];
  for (int i = 0; i < 64; ++i) a[i] = rank * 64 + i;

  MPI_Op my;
  MPI_Op_create(MySum, 1, &my);
  MPI_Allreduce(a, b, 64, MPI_INT, my, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "user op", b, sizeof(int) * 64);
  MPI_Op_free(&my);

  MPI_Datatype vec;
  MPI_Type_vector(8, 2, 4, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  memcpy(b, a, sizeof(a));
  MPI_Bcast(b, 1, vec, size - 1, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "vector type bcast", b, sizeof(int) * 32);
  MPI_Type_free(&vec);

  MPI_Datatype contig;
  MPI_Type_contiguous(4, MPI_INT, &contig);
  MPI_Type_commit(&contig);
  MPI_Allgather(a, 2, contig, b, 2, contig, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "contiguous type allgather", b, sizeof(int) * 8 * size);
  MPI_Type_free(&contig);

  struct {
    double v;
    int i;
  } in[4], out[4];
  memset(in, 0, sizeof(in)); /* the padding bytes are hashed too */
  memset(out, 0, sizeof(out));
  for (int k = 0; k < 4; ++k) {
    in[k].v = (rank * 7 + k) % 5;
    in[k].i = rank;
  }
  MPI_Allreduce(in, out, 4, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "minloc double_int", out, sizeof(out));

  int flags[16], land[16];
  for (int k = 0; k < 16; ++k) flags[k] = (k + rank) % 3 != 0;
  MPI_Allreduce(flags, land, 16, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "land int", land, sizeof(land));
  MPI_Allreduce(flags, land, 16, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "bor int", land, sizeof(land));

  short s[16], t[16];
  for (int k = 0; k < 16; ++k) s[k] = (short)(k * rank);
  MPI_Allreduce(s, t, 16, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "short sum", t, sizeof(t));

  int* counts = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; ++r) total += counts[r] = r + 1;
  int* big = malloc(sizeof(int) * total);
  for (int k = 0; k < total; ++k) big[k] = k + rank;
  MPI_Reduce_scatter(big, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  Report(MPI_COMM_WORLD, "uneven reduce_scatter", b, sizeof(int) * (rank + 1));
  free(big);
  free(counts);

  if (size >= 2) {
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 9, &inter);
    int v = rank + 1, w = 0;
    MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, inter);
    Report(MPI_COMM_WORLD, "intercomm allreduce", &w, sizeof(w));
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
  MPI_Finalize();
  return 0;
}
