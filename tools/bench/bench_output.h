// weft-bench's output: the nccl-tests-style table on rank 0, and CSV / JSON records.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "bench_colls.h"

namespace bench {

/// One measured (size, place, implementation).
struct Record {
  std::string collective, dtype, op, impl;
  size_t bytes = 0, count = 0;
  int root = -1;
  bool in_place = false;
  double time_us = 0, algbw = 0, busbw = 0;
  long long wrong = 0;  // -1 when validation was off
  double floor_us = 0;  // the node's memory-traffic floor for this row (bench_floor.h); 0: none
};

/// The exact CSV header the issue and the plot script rely on.
inline constexpr const char* kCsvHeader =
    "collective,bytes,count,dtype,op,root,inplace,impl,time_us,algbw_gbps,busbw_gbps,wrong";

/// Prints the table's header for one collective.
void PrintTableHeader(FILE* f, const Ctx& x, const Options& o, const std::string& mpi_name);
/// Prints one row: the native record (null when native cannot run it) beside weft's.
void PrintRow(FILE* f, const Record* native, const Record& weft);
/// Writes every record as CSV (with kCsvHeader) or as a JSON array; false on I/O failure.
bool WriteCsv(const std::string& path, const std::vector<Record>& rows);
bool WriteJson(const std::string& path, const std::vector<Record>& rows);

}  // namespace bench
