/* Ranks of one collective passing different datatypes with the same type signature, which MPI
 * allows: MPI_INT (or MPI_DOUBLE) counts on some ranks, and on others a contiguous type, a
 * vector with gaps, a struct of one basic type, and an indexed type of unit blocks in reversed
 * order. (Reductions: MPI requires the same predefined datatype on every rank for a predefined
 * op, and both Open MPI and MPICH 4.0.2 reject derived types there, so reductions use plain
 * types; their derived forms are the data movement's.) Every intercepted collective, in place and
 * not, at roots 0 and last, counts 0, 12 and 4100 elements a block (alltoallv: uneven blocks
 * with gaps). A rank choosing a path by its
 * own datatype handle hangs the job (the ctest timeout fails it); a wrong pack or unpack changes
 * the output, which must be byte-identical to the native run's. Gaps in the layouts hold a sentinel
 * that must survive. */
#include <string.h>

#include "shim_util.h"

enum { kUnit = 4, kVariants = 5, kMaxExtent = 5 };

/* One variant: kUnit basic elements a unit (1 for the plain type), where element i of a unit
 * sits (in basic elements from the unit's start), and the unit's extent. */
typedef struct {
  const char* name;
  int per_unit;
  int pos[kUnit];
  int extent;
} Variant;

static const Variant kVariantsTable[kVariants] = {
    {"plain", 1, {0}, 1},
    {"contig", kUnit, {0, 1, 2, 3}, 4},
    {"vector", kUnit, {0, 1, 3, 4}, 5},  /* vector(2, 2, 3) */
    {"struct", kUnit, {0, 2, 3, 4}, 5},  /* {1 at 0, 3 at 2}, extent 5 */
    {"indexed", kUnit, {3, 2, 1, 0}, 4}, /* unit blocks in reversed order */
};

static MPI_Datatype MakeType(int v, MPI_Datatype basic) {
  MPI_Datatype t = basic;
  MPI_Aint bsize = 0, lb = 0;
  MPI_Type_get_extent(basic, &lb, &bsize);
  switch (v) {
    case 1:
      MPI_Type_contiguous(kUnit, basic, &t);
      break;
    case 2:
      MPI_Type_vector(2, 2, 3, basic, &t);
      break;
    case 3: {
      int lens[2] = {1, 3};
      MPI_Aint disps[2] = {0, 2 * bsize};
      MPI_Datatype types[2] = {basic, basic};
      MPI_Datatype s;
      MPI_Type_create_struct(2, lens, disps, types, &s);
      MPI_Type_create_resized(s, 0, 5 * bsize, &t);
      MPI_Type_free(&s);
      break;
    }
    case 4: {
      int disps[kUnit] = {3, 2, 1, 0};
      MPI_Type_create_indexed_block(kUnit, 1, disps, basic, &t);
      break;
    }
    default:
      return basic;
  }
  MPI_Type_commit(&t);
  return t;
}

/* A buffer of `blocks` blocks of n basic elements each in variant v's layout. */
typedef struct {
  int v;
  MPI_Datatype type;
  int units; /* per block, in the variant's datatype */
  size_t words;
  double* data; /* doubles hold every value exactly (ints are small) */
  int is_int;
  size_t esize;
} Buf;

static size_t Index(const Variant* var, size_t elem) {
  return (elem / var->per_unit) * var->extent + var->pos[elem % var->per_unit];
}

static void Put(Buf* b, size_t elem, int value) {
  size_t at = Index(&kVariantsTable[b->v], elem);
  if (b->is_int)
    ((int*)b->data)[at] = value;
  else
    b->data[at] = value;
}

static double Get(const Buf* b, size_t elem) {
  size_t at = Index(&kVariantsTable[b->v], elem);
  return b->is_int ? ((int*)b->data)[at] : b->data[at];
}

static Buf MakeBuf(int v, int is_int, int n, int blocks) {
  const Variant* var = &kVariantsTable[v];
  Buf b;
  b.v = v;
  b.is_int = is_int;
  b.esize = is_int ? sizeof(int) : sizeof(double);
  b.type = MakeType(v, is_int ? MPI_INT : MPI_DOUBLE);
  b.units = n / var->per_unit;
  b.words = (size_t)(n / var->per_unit) * blocks * var->extent + 1;
  b.data = (double*)malloc(b.words * sizeof(double));
  for (size_t i = 0; i < b.words; ++i) { /* the sentinel in every gap */
    if (is_int)
      ((int*)b.data)[i] = -7;
    else
      b.data[i] = -7.0;
  }
  return b;
}

static void FreeBuf(Buf* b) {
  if (b->type != MPI_INT && b->type != MPI_DOUBLE) MPI_Type_free(&b->type);
  free(b->data);
}

/* Reports elements [first, first + n) in signature order, and the whole raw buffer (gaps
 * included) when raw is set. */
static void Check(const char* name, const Buf* b, size_t first, size_t n, int raw) {
  double* vals = (double*)malloc((n + 1) * sizeof(double));
  for (size_t i = 0; i < n; ++i) vals[i] = Get(b, first + i);
  Report(MPI_COMM_WORLD, name, vals, n * sizeof(double));
  free(vals);
  if (raw) {
    char raw_name[200];
    snprintf(raw_name, sizeof(raw_name), "%s raw", name);
    Report(MPI_COMM_WORLD, raw_name, b->data, b->words * b->esize);
  }
}

static int Value(int rank, size_t i, int salt) { return (int)((i * 7 + rank * 3 + salt) % 16); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(lib, &len);
  /* MPICH 4.0.2 crashes natively in an in-place MPI_Reduce at a non-zero root. */
  const int mpich = strncmp(lib, "MPICH", 5) == 0;
  const int counts[] = {0, 12, 4100};
  char name[160];
  int test = 0;
  for (int is_int = 1; is_int >= 0; --is_int) {
    const char* tn = is_int ? "int" : "double";
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
      const int n = counts[ci];
      for (int in_place = 0; in_place <= 1; ++in_place, ++test) {
        /* Each rank its own variants, different from its neighbours'. */
        const int vs = (rank + test) % kVariants, vr = (rank + test + 2) % kVariants;
        const int rvs = 0, rvr = 0; /* reductions: see the top */
        const char* ip = in_place ? "in place" : "out of place";

        /* Allreduce (sum) */
        Buf s = MakeBuf(rvs, is_int, n, 1), r = MakeBuf(rvr, is_int, n, 1);
        for (int i = 0; i < n; ++i) Put(in_place ? &r : &s, i, Value(rank, i, 1));
        MPI_Allreduce(in_place ? MPI_IN_PLACE : s.data, r.data, r.units, r.type, MPI_SUM,
                      MPI_COMM_WORLD);
        snprintf(name, sizeof(name), "allreduce %s n=%d %s", tn, n, ip);
        Check(name, &r, 0, n, 1);

        /* Reduce (max) at roots 0 and last */
        for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
          if (in_place && mpich && root != 0) continue;
          Buf rs = MakeBuf(rvs, is_int, n, 1), rr = MakeBuf(rvr, is_int, n, 1);
          const int here_in_place = in_place && rank == root;
          for (int i = 0; i < n; ++i) Put(here_in_place ? &rr : &rs, i, Value(rank, i, 2));
          MPI_Reduce(here_in_place ? MPI_IN_PLACE : rs.data, rr.data, rr.units, rr.type, MPI_MAX,
                     root, MPI_COMM_WORLD);
          snprintf(name, sizeof(name), "reduce %s n=%d %s root %d", tn, n, ip, root);
          if (rank == root) {
            Check(name, &rr, 0, n, 1);
          } else { /* the receive buffer is not used here: report nothing, twice as Check does */
            Report(MPI_COMM_WORLD, name, "", 0);
            Report(MPI_COMM_WORLD, name, "", 0);
          }
          FreeBuf(&rs);
          FreeBuf(&rr);
        }

        /* Bcast at roots 0 and last (one buffer; in_place only changes the variants) */
        for (int root = 0; root<size; root += size> 1 ? size - 1 : 1) {
          Buf b = MakeBuf(in_place ? vr : vs, is_int, n, 1);
          if (rank == root)
            for (int i = 0; i < n; ++i) Put(&b, i, Value(rank, i, 3));
          MPI_Bcast(b.data, b.units, b.type, root, MPI_COMM_WORLD);
          snprintf(name, sizeof(name), "bcast %s n=%d variant-set %d root %d", tn, n, in_place,
                   root);
          Check(name, &b, 0, n, 1);
          FreeBuf(&b);
        }

        /* Allgather */
        Buf gs = MakeBuf(vs, is_int, n, 1), gr = MakeBuf(vr, is_int, n, size);
        for (int i = 0; i < n; ++i)
          Put(in_place ? &gr : &gs, (in_place ? (size_t)rank * n : 0) + i, Value(rank, i, 4));
        MPI_Allgather(in_place ? MPI_IN_PLACE : gs.data, gs.units, gs.type, gr.data, gr.units,
                      gr.type, MPI_COMM_WORLD);
        snprintf(name, sizeof(name), "allgather %s n=%d %s", tn, n, ip);
        Check(name, &gr, 0, (size_t)n * size, 1);

        /* Alltoall */
        Buf as = MakeBuf(vs, is_int, n, size), ar = MakeBuf(vr, is_int, n, size);
        for (size_t i = 0; i < (size_t)n * size; ++i)
          Put(in_place ? &ar : &as, i, Value(rank, i, 5));
        MPI_Alltoall(in_place ? MPI_IN_PLACE : as.data, as.units, as.type, ar.data, ar.units,
                     ar.type, MPI_COMM_WORLD);
        snprintf(name, sizeof(name), "alltoall %s n=%d %s", tn, n, ip);
        Check(name, &ar, 0, (size_t)n * size, 1);

        /* Alltoallv: blocks of 0, n/2 or n elements by pair (symmetric, as in place needs),
         * placed last peer first with a gap of one datatype element after each. */
        {
          const int vv[2] = {vs, vr};
          int *cnt[2], *dsp[2];
          Buf vb[2];
          for (int side = 0; side < 2; ++side) {
            const int per = kVariantsTable[vv[side]].per_unit;
            cnt[side] = (int*)malloc(sizeof(int) * size);
            dsp[side] = (int*)malloc(sizeof(int) * size);
            int units = 0;
            for (int j = size - 1; j >= 0; --j) {
              cnt[side][j] = 4 * (((rank + j) % 3) * (n / 8)) / per;
              dsp[side][j] = units;
              units += cnt[side][j] + 1;
            }
            vb[side] = MakeBuf(vv[side], is_int, units * per, 1);
            vb[side].units = units;
          }
          Buf* src = in_place ? &vb[1] : &vb[0];
          const int sside = in_place ? 1 : 0, sper = kVariantsTable[vv[sside]].per_unit;
          for (int j = 0; j < size; ++j)
            for (int k = 0; k < cnt[sside][j] * sper; ++k)
              Put(src, (size_t)dsp[sside][j] * sper + k, Value(rank, (size_t)j * 1000 + k, 8));
          MPI_Alltoallv(in_place ? MPI_IN_PLACE : vb[0].data, cnt[0], dsp[0], vb[0].type,
                        vb[1].data, cnt[1], dsp[1], vb[1].type, MPI_COMM_WORLD);
          snprintf(name, sizeof(name), "alltoallv %s n=%d %s", tn, n, ip);
          Check(name, &vb[1], 0, (size_t)vb[1].units * kVariantsTable[vv[1]].per_unit, 1);
          for (int side = 0; side < 2; ++side) {
            FreeBuf(&vb[side]);
            free(cnt[side]);
            free(dsp[side]);
          }
        }

        /* Reduce_scatter_block and Reduce_scatter with equal counts (sum) */
        for (int uneven_api = 0; uneven_api <= 1; ++uneven_api) {
          Buf ss = MakeBuf(rvs, is_int, n, size);
          Buf sr = MakeBuf(rvr, is_int, n, in_place ? size : 1);
          for (size_t i = 0; i < (size_t)n * size; ++i)
            Put(in_place ? &sr : &ss, i, Value(rank, i, 6));
          const void* src = in_place ? MPI_IN_PLACE : ss.data;
          if (uneven_api) {
            int* rc = (int*)malloc(sizeof(int) * size);
            for (int k = 0; k < size; ++k) rc[k] = sr.units;
            MPI_Reduce_scatter(src, sr.data, rc, sr.type, MPI_SUM, MPI_COMM_WORLD);
            free(rc);
          } else {
            MPI_Reduce_scatter_block(src, sr.data, sr.units, sr.type, MPI_SUM, MPI_COMM_WORLD);
          }
          snprintf(name, sizeof(name), "%s %s n=%d %s",
                   uneven_api ? "reduce_scatter" : "reduce_scatter_block", tn, n, ip);
          Check(name, &sr, 0, n, !in_place); /* in place, the rest of the buffer is undefined */
          FreeBuf(&ss);
          FreeBuf(&sr);
        }
        FreeBuf(&s);
        FreeBuf(&r);
        FreeBuf(&gs);
        FreeBuf(&gr);
        FreeBuf(&as);
        FreeBuf(&ar);
      }
    }
  }
#if MPI_VERSION >= 4
  { /* A persistent bcast: a vector on the root, MPI_INT elsewhere, started twice. */
    const int n = 12;
    Buf b = MakeBuf(rank == 0 ? 2 : 0, 1, n, 1);
    MPI_Request req;
    MPI_Bcast_init(b.data, b.units, b.type, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int round = 0; round < 2; ++round) {
      if (rank == 0)
        for (int i = 0; i < n; ++i) Put(&b, i, Value(rank, i, 7 + round));
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      snprintf(name, sizeof(name), "persistent bcast round %d", round);
      Check(name, &b, 0, n, 1);
    }
    MPI_Request_free(&req);
    FreeBuf(&b);
  }
#endif
  MPI_Finalize();
  return 0;
}
