// The C++ API (weft.hpp): RAII communicator and plan, std::span calls, weft::Error on failure.
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "mp_check.h"
#include "weft/weft.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  mpt::Report report(MPI_COMM_WORLD);
  {
    weft::Communicator comm(MPI_COMM_WORLD);
    const int rank = comm.rank(), size = comm.size();
    report.Case(size >= 1 && rank >= 0 && rank < size, "rank and size");

    std::vector<double> in(100, rank + 1.0), out(100);
    comm.allreduce<double>(in, out);
    report.Case(out[99] == size * (size + 1) / 2.0, "allreduce span");
    comm.allreduce<double>(std::span<double>(in), weftMax);
    report.Case(in[0] == size, "allreduce in place");

    std::vector<int32_t> mine(3, rank), all(3 * size);
    comm.allgather<int32_t>(mine, all);
    bool ok = true;
    for (int r = 0; r < size; ++r) ok &= all[3 * r + 2] == r;
    report.Case(ok, "allgather span");

    std::vector<int64_t> blocks(4 * size, 1), mine_sum(4);
    comm.reduce_scatter<int64_t>(blocks, mine_sum);
    report.Case(mine_sum[3] == size, "reduce_scatter span");

    std::vector<uint64_t> to(size), from(size);
    std::iota(to.begin(), to.end(), 100u * rank);
    comm.alltoall<uint64_t>(to, from);
    ok = true;
    for (int p = 0; p < size; ++p) ok &= from[p] == 100u * p + rank;
    report.Case(ok, "alltoall span");

    // v-collectives: rank r contributes r+1 elements; blocks packed in rank order.
    std::vector<size_t> counts(size), displs(size);
    size_t total = 0;
    for (int r = 0; r < size; ++r) {
      counts[r] = r + 1;
      displs[r] = total;
      total += counts[r];
    }
    std::vector<int32_t> vmine(rank + 1, rank), vall(total, -1);
    comm.allgatherv<int32_t>(vmine, vall, counts, displs);
    ok = true;
    for (int r = 0; r < size; ++r) ok &= vall[displs[r] + r] == r;
    report.Case(ok, "allgatherv span");
    std::vector<int32_t> scattered(rank + 1, -1);
    comm.scatterv<int32_t>(vall, counts, displs, scattered, 0);
    report.Case(scattered[rank] == rank, "scatterv span");
    std::vector<int32_t> gathered(total, -1);
    comm.gatherv<int32_t>(vmine, gathered, counts, displs, size - 1);
    report.Case(rank != size - 1 || gathered == vall, "gatherv span");
    std::vector<int64_t> vsum_in(total, 1), vsum(rank + 1);
    comm.reduce_scatter_v<int64_t>(vsum_in, vsum, counts);
    report.Case(vsum[rank] == size, "reduce_scatter_v span");
    std::vector<size_t> ones(size, 1), iota_d(size);
    std::iota(iota_d.begin(), iota_d.end(), size_t{0});
    weft::Request vreq = comm.ialltoallv<uint64_t>(to, ones, iota_d, from, ones, iota_d);
    vreq.wait();
    ok = true;
    for (int p = 0; p < size; ++p) ok &= from[p] == 100u * p + rank;
    report.Case(ok, "ialltoallv span");
    std::vector<int32_t> sin(2, rank + 1), sout(2, -7);
    comm.scan<int32_t>(sin, sout);
    report.Case(sout[1] == (rank + 1) * (rank + 2) / 2, "scan span");
    comm.exscan<int32_t>(sin, sout, weftMax);
    report.Case(sout[1] == (rank == 0 ? (rank + 1) * (rank + 2) / 2 : rank), "exscan span");

    std::vector<float> msg(8, rank == 0 ? 7.0f : 0.0f);
    comm.broadcast<float>(msg, 0);
    report.Case(msg[7] == 7.0f, "broadcast span");

    std::vector<int32_t> one(5, 2), root_out(5);
    comm.reduce<int32_t>(one, root_out, size - 1, weftProd);
    report.Case(rank != size - 1 || root_out[0] == (1 << size), "reduce span");

    std::vector<float> pin(16), pout(16);
    weft::Plan plan = comm.allreduce_init<float>(pin, pout, weftAvg);
    for (int step = 0; step < 3; ++step) {
      std::fill(pin.begin(), pin.end(), static_cast<float>(rank + step));
      plan.start();
      plan.wait();
      report.Case(pout[0] == (size - 1) / 2.0f + step, "plan run " + std::to_string(step));
    }
    report.Case(plan.describe().find("allreduce") != std::string::npos, "plan describe",
                plan.describe());

    // Errors come back as weft::Error with the code and the library's text.
    try {
      comm.allreduce<double>(in, std::span<double>(out.data(), 50));
      report.Case(false, "size mismatch throws");
    } catch (const weft::Error& e) {
      report.Case(e.code() == weftInvalidArgument, "size mismatch throws", e.what());
    }
    try {
      weft::Check(
          weftAllReduce(in.data(), in.data() + 1, 10, weftDouble, weftSum, comm.get(), nullptr),
          comm.get());
      report.Case(false, "overlap throws");
    } catch (const weft::Error& e) {
      report.Case(e.code() == weftInvalidArgument &&
                      std::string(e.what()).find("overlap") != std::string::npos,
                  "overlap throws with the library's text", e.what());
    }
    comm.barrier();
  }  // plan and communicator freed here (RAII)
  int rc = report.Finish("cpp_api");
  MPI_Finalize();
  return rc;
}
