// Blocking point-to-point while weft runs served nonblocking collectives. MPI advances a
// nonblocking collective inside any MPI call, so a program may block in MPI_Recv for a message
// its peer sends only after waiting for that collective; weft advances its executions only
// inside the interposer's calls, and the native MPI_Recv would wait forever
// (tests/shim/shim_p2p_progress.c hung before this file). So while a served nonblocking call
// runs, MPI_Send, MPI_Recv and MPI_Sendrecv become their nonblocking form and a wait that keeps
// weft's calls moving; otherwise they cost one atomic load before the native routine. The same
// holds for the other blocking sends (synchronous, buffered, ready), for a probe (a loop of its
// nonblocking form) and for a matched receive.
#include <mpi.h>
#include <sched.h>

#include "shim_colls.h"
#include "shim_requests.h"

using weft::shim::Guard;
using weft::shim::NonblockingRunning;

namespace {

// A blocking send as its nonblocking form (isend: PMPI_Isend, PMPI_Issend, ...) plus a wait
// that advances weft's calls.
template <typename Isend>
int SendProgressing(Isend isend) {
  return Guard([&] {
    MPI_Request r;
    const int rc = isend(&r);
    return rc != MPI_SUCCESS ? rc : weft::shim::WaitProgressing(&r, MPI_STATUS_IGNORE);
  });
}

// A blocking probe as a loop of its nonblocking form (iprobe sets *flag).
template <typename Iprobe>
int ProbeProgressing(Iprobe iprobe) {
  return Guard([&] {
    for (;;) {
      int flag = 0;
      const int rc = iprobe(&flag);
      if (rc != MPI_SUCCESS || flag) return rc;
      weft::shim::ProgressServed();
      sched_yield();  // ranks may outnumber cores
    }
  });
}

}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!NonblockingRunning()) return PMPI_Send(buf, count, type, dest, tag, comm);
  return SendProgressing(
      [&](MPI_Request* r) { return PMPI_Isend(buf, count, type, dest, tag, comm, r); });
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!NonblockingRunning()) return PMPI_Ssend(buf, count, type, dest, tag, comm);
  return SendProgressing(
      [&](MPI_Request* r) { return PMPI_Issend(buf, count, type, dest, tag, comm, r); });
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!NonblockingRunning()) return PMPI_Bsend(buf, count, type, dest, tag, comm);
  return SendProgressing(
      [&](MPI_Request* r) { return PMPI_Ibsend(buf, count, type, dest, tag, comm, r); });
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!NonblockingRunning()) return PMPI_Rsend(buf, count, type, dest, tag, comm);
  return SendProgressing(
      [&](MPI_Request* r) { return PMPI_Irsend(buf, count, type, dest, tag, comm, r); });
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!NonblockingRunning()) return PMPI_Probe(source, tag, comm, status);
  return ProbeProgressing([&](int* flag) { return PMPI_Iprobe(source, tag, comm, flag, status); });
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  if (!NonblockingRunning()) return PMPI_Mprobe(source, tag, comm, message, status);
  return ProbeProgressing(
      [&](int* flag) { return PMPI_Improbe(source, tag, comm, flag, message, status); });
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  if (!NonblockingRunning()) return PMPI_Mrecv(buf, count, type, message, status);
  return Guard([&] {
    MPI_Request r;
    const int rc = PMPI_Imrecv(buf, count, type, message, &r);
    return rc != MPI_SUCCESS ? rc : weft::shim::WaitProgressing(&r, status);
  });
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  if (!NonblockingRunning()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  return Guard([&] {
    MPI_Request r;
    const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &r);
    return rc != MPI_SUCCESS ? rc : weft::shim::WaitProgressing(&r, status);
  });
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  if (!NonblockingRunning()) {
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  }
  return Guard([&] {
    MPI_Request r[2];
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
    if (rc != MPI_SUCCESS) return rc;
    rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]);
    if (rc != MPI_SUCCESS) {
      PMPI_Cancel(&r[0]);
      PMPI_Request_free(&r[0]);
      return rc;
    }
    MPI_Status st[2];
    rc = weft::shim::WaitallProgressing(2, r, st);
    if (status != MPI_STATUS_IGNORE) *status = st[0];
    return rc;
  });
}

}  // extern "C"
