#include "bench_output.h"

#include "check/reference.h"

namespace bench {

void PrintTableHeader(FILE* f, const Ctx& x, const Options& o, const std::string& mpi_name) {
  std::fprintf(
      f, "#\n# weft-bench %s: %d ranks, %s, op %s, root %d, warmup %d, iters %d, validation %s\n",
      CollName(x.coll), x.size, weft::check::TName(x.type), weft::check::OName(x.op), x.root,
      o.warmup, o.iters, o.check ? "on" : "off");
  std::fprintf(f, "# native: %s; weft: the weft library, in the same run on the same buffers\n",
               mpi_name.c_str());
  if (o.nonblocking) {
    std::fprintf(f,
                 "# calls: nonblocking on both sides (post, then wait: MPI_I... + MPI_Wait, "
                 "weftI... + weftRequestWait)\n");
  }
  std::fprintf(
      f, "%s",
      o.hot_buffers
          ? "# buffers: hot, one set per size reused by every call (OSU, IMB, nccl-tests)\n"
          : "# buffers: rotated through twice the last-level cache, every call cold\n");
  if (o.cold_bytes > 0) {
    std::fprintf(f, "# cold: every rank writes %zu bytes of other memory before each call\n",
                 o.cold_bytes);
  }
  std::fprintf(
      f, "# size = per-rank send buffer; time = median over iterations of the slowest rank\n");
  std::fprintf(f, "#%57s %-33s %-33s\n", "", "native MPI", "weft");
  std::fprintf(f, "# %10s %11s %8s %6s %4s %5s  %9s %7s %7s %6s  %9s %7s %7s %6s  %7s %6s %6s\n",
               "size", "count", "type", "redop", "root", "place", "time", "algbw", "busbw",
               "#wrong", "time", "algbw", "busbw", "#wrong", "speedup", "floor", "floor");
  std::fprintf(f, "# %10s %11s %8s %6s %4s %5s  %9s %7s %7s %6s  %9s %7s %7s %6s  %7s %6s %6s\n",
               "(B)", "(elements)", "", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
               "(GB/s)", "(GB/s)", "", "w/n", "(weft)", "(nat.)");
}

namespace {

void Cells(FILE* f, const Record* r) {
  if (r == nullptr) {
    std::fprintf(f, "  %9s %7s %7s %6s", "n/a", "n/a", "n/a", "n/a");
    return;
  }
  char wrong[24];
  if (r->wrong < 0)
    std::snprintf(wrong, sizeof(wrong), "N/A");
  else
    std::snprintf(wrong, sizeof(wrong), "%lld", r->wrong);
  std::fprintf(f, "  %9.2f %7.2f %7.2f %6s", r->time_us, r->algbw, r->busbw, wrong);
}

}  // namespace

void PrintRow(FILE* f, const Record* native, const Record& weft) {
  std::fprintf(f, "  %10zu %11zu %8s %6s %4d %5s", weft.bytes, weft.count, weft.dtype.c_str(),
               weft.op.c_str(), weft.root, weft.in_place ? "in" : "out");
  Cells(f, native);
  Cells(f, &weft);
  if (native != nullptr && weft.time_us > 0)
    std::fprintf(f, "  %6.2fx", native->time_us / weft.time_us);
  else
    std::fprintf(f, "  %7s", "n/a");
  // The fractions of the node's memory-traffic floor weft and the native routine reached: a
  // native routine at x% of the floor caps weft's speedup at 100/x even at the floor.
  auto floor_cell = [&](const Record* r) {
    if (r != nullptr && weft.floor_us > 0 && r->time_us > 0)
      std::fprintf(f, " %5.1f%%", 100.0 * weft.floor_us / r->time_us);
    else
      std::fprintf(f, " %6s", "n/a");
  };
  floor_cell(&weft);
  floor_cell(native);
  std::fprintf(f, "\n");
  std::fflush(f);
}

bool WriteCsv(const std::string& path, const std::vector<Record>& rows) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "%s\n", kCsvHeader);
  for (const auto& r : rows) {
    std::fprintf(f, "%s,%zu,%zu,%s,%s,%d,%d,%s,%.3f,%.4f,%.4f,%lld\n", r.collective.c_str(),
                 r.bytes, r.count, r.dtype.c_str(), r.op.c_str(), r.root, r.in_place ? 1 : 0,
                 r.impl.c_str(), r.time_us, r.algbw, r.busbw, r.wrong);
  }
  return std::fclose(f) == 0;
}

bool WriteJson(const std::string& path, const std::vector<Record>& rows) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f, "[\n");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Record& r = rows[i];
    std::fprintf(
        f,
        "  {\"collective\": \"%s\", \"bytes\": %zu, \"count\": %zu, \"dtype\": \"%s\", \"op\": "
        "\"%s\", "
        "\"root\": %d, \"inplace\": %d, \"impl\": \"%s\", \"time_us\": %.3f, \"algbw_gbps\": %.4f, "
        "\"busbw_gbps\": %.4f, \"wrong\": %lld}%s\n",
        r.collective.c_str(), r.bytes, r.count, r.dtype.c_str(), r.op.c_str(), r.root,
        r.in_place ? 1 : 0, r.impl.c_str(), r.time_us, r.algbw, r.busbw, r.wrong,
        i + 1 < rows.size() ? "," : "");
  }
  std::fprintf(f, "]\n");
  return std::fclose(f) == 0;
}

}  // namespace bench
