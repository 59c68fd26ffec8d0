/* weft: compiled collectives for many-core nodes and accelerators.
 *
 * The C API. It follows NCCL's names and argument order; every function returns a
 * weftResult_t, never aborts and never lets a C++ exception escape. The detailed text of
 * the last failure on a communicator is available from weftGetLastError(). */
#ifndef WEFT_WEFT_H_
#define WEFT_WEFT_H_

#include <mpi.h>
#include <stddef.h>

/// Marks the exported C API (the library is built with hidden visibility).
#if defined(__GNUC__)
#define WEFT_API __attribute__((visibility("default")))
#else
#define WEFT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/// Major, minor and patch of this header's library.
#define WEFT_MAJOR 0
#define WEFT_MINOR 1
#define WEFT_PATCH 0
/// One integer for the version: MAJOR*10000 + MINOR*100 + PATCH (NCCL's scheme).
#define WEFT_VERSION_CODE (WEFT_MAJOR * 10000 + WEFT_MINOR * 100 + WEFT_PATCH)

/// In C++ the enums below are int-based, so that any int a caller passes is a value of the
/// type and is checked as such (C sees plain enums, also int-sized: the ABI is the same).
#ifdef __cplusplus
#define WEFT_ENUM_BASE : int
#else
#define WEFT_ENUM_BASE
#endif

/// Status of every call. The numbering is part of the ABI.
typedef enum WEFT_ENUM_BASE {
  weftSuccess = 0,
  weftUnhandledDeviceError = 1,
  weftSystemError = 2,
  weftInternalError = 3,
  weftInvalidArgument = 4,
  weftInvalidUsage = 5,
  weftRemoteError = 6,
  weftInProgress = 7,
  weftTimeout = 8,
  weftNotSupported = 9,
  weftMpiError = 10,
  weftNumResults = 11
} weftResult_t;

/// Element types, numbered as NCCL numbers its ncclDataType_t (a value passed between the two
/// libraries means the same type). fp16/bf16 reductions accumulate in fp32.
typedef enum WEFT_ENUM_BASE {
  weftInt8 = 0,
  weftChar = 0,
  weftUint8 = 1,
  weftInt32 = 2,
  weftInt = 2,
  weftUint32 = 3,
  weftInt64 = 4,
  weftUint64 = 5,
  weftFloat16 = 6,
  weftHalf = 6,
  weftFloat32 = 7,
  weftFloat = 7,
  weftFloat64 = 8,
  weftDouble = 8,
  weftBfloat16 = 9,
  weftNumTypes = 10
} weftDataType_t;

/// Reduction operators, numbered as NCCL's ncclRedOp_t. Integer Sum and Prod wrap in two's
/// complement; integer Avg is the exact mean truncated toward zero.
typedef enum WEFT_ENUM_BASE {
  weftSum = 0,
  weftProd = 1,
  weftMax = 2,
  weftMin = 3,
  weftAvg = 4,
  weftNumOps = 5
} weftRedOp_t;

/// A communicator: weft's state for a group of MPI ranks.
typedef struct weftComm* weftComm_t;
/// A persistent collective bound to its buffers at creation.
typedef struct weftPlan* weftPlan_t;
/// A nonblocking collective in flight (weftIAllReduce and friends); NULL when there is none.
typedef struct weftRequest* weftRequest_t;
/// A device stream of the active backend (a cudaStream_t under CUDA, one made by
/// weftStreamCreate under any backend); NULL is the backend's default stream. Collectives
/// read their inputs after the work already queued on it, and its later work sees their
/// results; the call itself returns once they are in place.
typedef void* weftStream_t;

/// What a communicator's staging pool holds (weftCommStagingStats).
typedef struct {
  size_t held_bytes;              /* host staging memory owned now (idle + in use) */
  size_t idle_bytes;              /* of which kept for reuse (never above WEFT_STAGING_CACHE_MAX) */
  unsigned long long allocations; /* host allocations made since the communicator was created */
  unsigned long long frees;
  int pinned;                      /* 1: the last allocation was page-locked */
  unsigned long long direct_calls; /* calls on device buffers handed to a device-aware MPI */
  unsigned long long ipc_calls;    /* calls run device to device between node peers (IPC) */
  unsigned long long nccl_calls;   /* calls run as NCCL collectives */
} weftStagingStats_t;

/// Short text for a status code; never NULL.
WEFT_API const char* weftGetErrorString(weftResult_t result);
/// Detailed text of the last failure on comm (with the MPI error string when MPI failed),
/// or of the last failure of this thread when comm is NULL or not a live communicator.
WEFT_API const char* weftGetLastError(weftComm_t comm);
/// Writes WEFT_VERSION_CODE of the loaded library.
WEFT_API weftResult_t weftGetVersion(int* version);

/// Creates a communicator over mpi_comm (collective over it). weft works on its own
/// duplicate of mpi_comm, with MPI_ERRORS_RETURN.
WEFT_API weftResult_t weftCommInitMPI(weftComm_t* comm, MPI_Comm mpi_comm);
/// Frees a communicator. Every rank must call it; pending plans must be freed first.
WEFT_API weftResult_t weftCommDestroy(weftComm_t comm);
/// Frees a communicator without waiting for peers (after an error). Never refuses: its live
/// plans are detached (an execution in flight is dropped); they can then only be freed.
WEFT_API weftResult_t weftCommAbort(weftComm_t comm);
/// The error that made comm unusable, or weftSuccess. A collective that gives up waiting for a
/// node peer (WEFT_TIMEOUT_S: the peer died or left) marks its communicator broken: every later
/// collective or plan start on it fails with weftRemoteError, and this returns weftTimeout.
/// The only way on is weftCommAbort (NCCL's ncclCommGetAsyncError plays the same part).
WEFT_API weftResult_t weftCommGetAsyncError(weftComm_t comm, weftResult_t* async_error);
/// Collective over comm: allocates size bytes (the same size on every rank) of host memory that
/// the node peers map as well (across nodes, each node's ranks map each other's). A large
/// collective whose buffers lie in such memory on every rank reads and writes the peers'
/// buffers in place, with no copy through a shared segment (docs/intra-node.md says what it
/// gains; across nodes, the hierarchical node levels: docs/ir.md). Elsewhere (no shared memory,
/// mapping not permitted) the memory is ordinary. It stays valid after comm is destroyed, until
/// weftMemFree.
WEFT_API weftResult_t weftMemAlloc(void** ptr, size_t size, weftComm_t comm);
/// Frees memory from weftMemAlloc (NULL is a no-op). The memory returns to the system once
/// every rank has freed its part.
WEFT_API weftResult_t weftMemFree(void* ptr);
/// The color of a rank that joins no new communicator in weftCommSplit (NCCL_SPLIT_NOCOLOR).
#define WEFT_SPLIT_NOCOLOR (-1)
/// Collective over comm (MPI_Comm_split's contract): ranks passing one color >= 0 form a new
/// communicator, ordered by key then by rank in comm; *newcomm is NULL on a rank passing
/// WEFT_SPLIT_NOCOLOR. Another negative color, or a NULL newcomm, is an invalid argument on
/// that rank, which still takes part (as NOCOLOR) so that the others do not wait for it.
WEFT_API weftResult_t weftCommSplit(weftComm_t comm, int color, int key, weftComm_t* newcomm);
/// Collective over comm: a new communicator over the same ranks, independent of comm
/// (its own MPI duplicate, programs and shared memory). As with weftCommInitMPI, a NULL
/// newcomm fails on that rank alone, before it takes part.
WEFT_API weftResult_t weftCommDup(weftComm_t comm, weftComm_t* newcomm);
/// Number of ranks in comm.
WEFT_API weftResult_t weftCommCount(const weftComm_t comm, int* count);
/// This process's rank in comm.
WEFT_API weftResult_t weftCommUserRank(const weftComm_t comm, int* rank);

/// recvbuff[i] = op over ranks of sendbuff[i]. In place when sendbuff == recvbuff.
WEFT_API weftResult_t weftAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                    weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                    weftStream_t stream);
/// Like weftAllReduce with the result only at root (recvbuff may be NULL elsewhere).
WEFT_API weftResult_t weftReduce(const void* sendbuff, void* recvbuff, size_t count,
                                 weftDataType_t datatype, weftRedOp_t op, int root, weftComm_t comm,
                                 weftStream_t stream);
/// Copies root's sendbuff into every rank's recvbuff (sendbuff is read at root only).
WEFT_API weftResult_t weftBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                    weftDataType_t datatype, int root, weftComm_t comm,
                                    weftStream_t stream);
/// recvbuff[r*sendcount ...] = rank r's sendbuff. In place when
/// sendbuff == recvbuff + rank*sendcount.
WEFT_API weftResult_t weftAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                    weftDataType_t datatype, weftComm_t comm, weftStream_t stream);
/// recvbuff = block `rank` of the reduction of every rank's sendbuff (nranks*recvcount
/// elements). In place when recvbuff == sendbuff + rank*recvcount.
WEFT_API weftResult_t weftReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                        weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                        weftStream_t stream);
/// Block r of sendbuff goes to rank r; block r of recvbuff comes from rank r. Blocks hold
/// count_per_peer elements. In place when sendbuff == recvbuff.
WEFT_API weftResult_t weftAllToAll(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                                   weftDataType_t datatype, weftComm_t comm, weftStream_t stream);
/// Returns once every rank of comm has entered.
WEFT_API weftResult_t weftBarrier(weftComm_t comm, weftStream_t stream);
/// Gathers sendcount elements from every rank into root's recvbuff, in rank order (recvbuff
/// is used at the root only; in place: the root's sendbuff == recvbuff + root*sendcount). Runs
/// the native MPI routine; host buffers only.
WEFT_API weftResult_t weftGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                 weftDataType_t datatype, int root, weftComm_t comm,
                                 weftStream_t stream);
/// Scatters root's sendbuff, recvcount elements to each rank in rank order (sendbuff is used
/// at the root only; in place: the root's recvbuff == sendbuff + root*recvcount). Runs the
/// native MPI routine; host buffers only.
WEFT_API weftResult_t weftScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                  weftDataType_t datatype, int root, weftComm_t comm,
                                  weftStream_t stream);
/// Gathers every rank's sendcount elements into every rank's recvbuff, rank r's block at
/// recvbuff + displs[r] (recvcounts[r] elements, equal to rank r's sendcount); counts and
/// displacements in elements, each below 2^31, blocks not overlapping. In place when sendbuff ==
/// recvbuff + displs[rank]. With every rank on one node, a compiled schedule (the v-collectives
/// to weftReduceScatterV: docs/ir.md, "mailbox"); across nodes the native MPI routine (but
/// weftAllToAllV's node-aware exchange). Host buffers only (as every call from here to
/// weftExScan).
WEFT_API weftResult_t weftAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                                     const size_t* recvcounts, const size_t* displs,
                                     weftDataType_t datatype, weftComm_t comm, weftStream_t stream);
/// Sends sendcounts[r] elements from sendbuff + sdispls[r] to rank r and receives
/// recvcounts[r] elements from rank r at recvbuff + rdispls[r] (recvcounts[r] equals rank r's
/// sendcounts[rank]). In place when sendbuff == recvbuff with equal send and receive arrays.
WEFT_API weftResult_t weftAllToAllV(const void* sendbuff, const size_t* sendcounts,
                                    const size_t* sdispls, void* recvbuff, const size_t* recvcounts,
                                    const size_t* rdispls, weftDataType_t datatype, weftComm_t comm,
                                    weftStream_t stream);
/// weftGather with a count per rank: rank r's sendcount elements land at root's recvbuff +
/// displs[r] (recvcounts and displs are read at the root only). In place at the root when
/// sendbuff == recvbuff + displs[root].
WEFT_API weftResult_t weftGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                                  const size_t* recvcounts, const size_t* displs,
                                  weftDataType_t datatype, int root, weftComm_t comm,
                                  weftStream_t stream);
/// weftScatter with a count per rank: rank r receives sendcounts[r] elements from root's
/// sendbuff + displs[r] (sendcounts and displs are read at the root only). In place at the root
/// when recvbuff == sendbuff + displs[root].
WEFT_API weftResult_t weftScatterV(const void* sendbuff, const size_t* sendcounts,
                                   const size_t* displs, void* recvbuff, size_t recvcount,
                                   weftDataType_t datatype, int root, weftComm_t comm,
                                   weftStream_t stream);
/// weftReduceScatter with a count per rank: sendbuff holds sum(recvcounts) elements, block r
/// (recvcounts[r] elements, after the blocks before it) of the reduction goes to rank r. Every
/// rank passes the same recvcounts. In place when recvbuff == sendbuff + (recvcounts[0] + ... +
/// recvcounts[rank-1]).
WEFT_API weftResult_t weftReduceScatterV(const void* sendbuff, void* recvbuff,
                                         const size_t* recvcounts, weftDataType_t datatype,
                                         weftRedOp_t op, weftComm_t comm, weftStream_t stream);
/// Inclusive prefix reduction: rank r's recvbuff = op over ranks 0..r of sendbuff (weftAvg: their
/// mean). In place when sendbuff == recvbuff.
WEFT_API weftResult_t weftScan(const void* sendbuff, void* recvbuff, size_t count,
                               weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                               weftStream_t stream);
/// Exclusive prefix reduction: rank r's recvbuff = op over ranks 0..r-1; rank 0's recvbuff is
/// left untouched (MPI leaves it undefined).
WEFT_API weftResult_t weftExScan(const void* sendbuff, void* recvbuff, size_t count,
                                 weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                 weftStream_t stream);
/// Sends count elements to peer. Blocking on the host: order sends and receives so that
/// they match, as with MPI_Send.
WEFT_API weftResult_t weftSend(const void* sendbuff, size_t count, weftDataType_t datatype,
                               int peer, weftComm_t comm, weftStream_t stream);
/// Receives count elements from peer.
WEFT_API weftResult_t weftRecv(void* recvbuff, size_t count, weftDataType_t datatype, int peer,
                               weftComm_t comm, weftStream_t stream);

/// Persistent collectives: bind the arguments once, then start and complete many times.
/// Creation is collective over comm, as MPI_Allreduce_init is: every rank creates its plans
/// in one order (a plan may agree with the other ranks at creation, on zero copy for
/// weftMemAlloc buffers) and starts them in one order.
WEFT_API weftResult_t weftAllReduceInit(const void* sendbuff, void* recvbuff, size_t count,
                                        weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                        weftPlan_t* plan);
/// Persistent weftReduce.
WEFT_API weftResult_t weftReduceInit(const void* sendbuff, void* recvbuff, size_t count,
                                     weftDataType_t datatype, weftRedOp_t op, int root,
                                     weftComm_t comm, weftPlan_t* plan);
/// Persistent weftBroadcast.
WEFT_API weftResult_t weftBroadcastInit(const void* sendbuff, void* recvbuff, size_t count,
                                        weftDataType_t datatype, int root, weftComm_t comm,
                                        weftPlan_t* plan);
/// Persistent weftAllGather.
WEFT_API weftResult_t weftAllGatherInit(const void* sendbuff, void* recvbuff, size_t sendcount,
                                        weftDataType_t datatype, weftComm_t comm, weftPlan_t* plan);
/// Persistent weftReduceScatter.
WEFT_API weftResult_t weftReduceScatterInit(const void* sendbuff, void* recvbuff, size_t recvcount,
                                            weftDataType_t datatype, weftRedOp_t op,
                                            weftComm_t comm, weftPlan_t* plan);
/// Persistent weftAllToAll.
WEFT_API weftResult_t weftAllToAllInit(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                                       weftDataType_t datatype, weftComm_t comm, weftPlan_t* plan);
/// Starts one execution; the buffers must not be touched until it completes.
WEFT_API weftResult_t weftPlanStart(weftPlan_t plan, weftStream_t stream);
/// Completes the execution started last (returns at once when none is active).
WEFT_API weftResult_t weftPlanWait(weftPlan_t plan);
/// Advances the execution; *done = 1 once it is complete.
WEFT_API weftResult_t weftPlanTest(weftPlan_t plan, int* done);
/// Frees a plan; an active execution is completed first.
WEFT_API weftResult_t weftPlanFree(weftPlan_t plan);
/// Writes a human-readable account of what the plan runs into buf (always terminated when
/// len > 0); *needed receives the length the full text needs, terminator included.
WEFT_API weftResult_t weftPlanDescribe(weftPlan_t plan, char* buf, size_t len, size_t* needed);

/* Nonblocking collectives: each starts the collective and returns a request; the buffers
 * must not be touched until weftRequestWait or weftRequestTest reports it complete. Every rank
 * starts collectives on a communicator in one order, blocking and nonblocking together, as MPI
 * requires; any number may be in flight, and they may be completed in any order. There is no
 * progress thread: weft advances a communicator's requests inside its calls on that
 * communicator (a test advances all of them; a wait completes the oldest first), and a
 * blocking collective first completes the requests started before it. Calls on device
 * buffers complete before they return (their request is already complete). */
/// Nonblocking weftAllReduce.
WEFT_API weftResult_t weftIAllReduce(const void* sendbuff, void* recvbuff, size_t count,
                                     weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                     weftRequest_t* request);
/// Nonblocking weftReduce.
WEFT_API weftResult_t weftIReduce(const void* sendbuff, void* recvbuff, size_t count,
                                  weftDataType_t datatype, weftRedOp_t op, int root,
                                  weftComm_t comm, weftRequest_t* request);
/// Nonblocking weftBroadcast.
WEFT_API weftResult_t weftIBroadcast(const void* sendbuff, void* recvbuff, size_t count,
                                     weftDataType_t datatype, int root, weftComm_t comm,
                                     weftRequest_t* request);
/// Nonblocking weftAllGather.
WEFT_API weftResult_t weftIAllGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                     weftDataType_t datatype, weftComm_t comm,
                                     weftRequest_t* request);
/// Nonblocking weftReduceScatter.
WEFT_API weftResult_t weftIReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                         weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                         weftRequest_t* request);
/// Nonblocking weftAllToAll.
WEFT_API weftResult_t weftIAllToAll(const void* sendbuff, void* recvbuff, size_t count_per_peer,
                                    weftDataType_t datatype, weftComm_t comm,
                                    weftRequest_t* request);
/// Nonblocking weftGather.
WEFT_API weftResult_t weftIGather(const void* sendbuff, void* recvbuff, size_t sendcount,
                                  weftDataType_t datatype, int root, weftComm_t comm,
                                  weftRequest_t* request);
/// Nonblocking weftScatter.
WEFT_API weftResult_t weftIScatter(const void* sendbuff, void* recvbuff, size_t recvcount,
                                   weftDataType_t datatype, int root, weftComm_t comm,
                                   weftRequest_t* request);
/// Nonblocking weftAllGatherV (the arrays are copied: they may change once it returns).
WEFT_API weftResult_t weftIAllGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                                      const size_t* recvcounts, const size_t* displs,
                                      weftDataType_t datatype, weftComm_t comm,
                                      weftRequest_t* request);
/// Nonblocking weftAllToAllV.
WEFT_API weftResult_t weftIAllToAllV(const void* sendbuff, const size_t* sendcounts,
                                     const size_t* sdispls, void* recvbuff,
                                     const size_t* recvcounts, const size_t* rdispls,
                                     weftDataType_t datatype, weftComm_t comm,
                                     weftRequest_t* request);
/// Nonblocking weftGatherV.
WEFT_API weftResult_t weftIGatherV(const void* sendbuff, size_t sendcount, void* recvbuff,
                                   const size_t* recvcounts, const size_t* displs,
                                   weftDataType_t datatype, int root, weftComm_t comm,
                                   weftRequest_t* request);
/// Nonblocking weftScatterV.
WEFT_API weftResult_t weftIScatterV(const void* sendbuff, const size_t* sendcounts,
                                    const size_t* displs, void* recvbuff, size_t recvcount,
                                    weftDataType_t datatype, int root, weftComm_t comm,
                                    weftRequest_t* request);
/// Nonblocking weftReduceScatterV.
WEFT_API weftResult_t weftIReduceScatterV(const void* sendbuff, void* recvbuff,
                                          const size_t* recvcounts, weftDataType_t datatype,
                                          weftRedOp_t op, weftComm_t comm, weftRequest_t* request);
/// Nonblocking weftScan.
WEFT_API weftResult_t weftIScan(const void* sendbuff, void* recvbuff, size_t count,
                                weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                weftRequest_t* request);
/// Nonblocking weftExScan.
WEFT_API weftResult_t weftIExScan(const void* sendbuff, void* recvbuff, size_t count,
                                  weftDataType_t datatype, weftRedOp_t op, weftComm_t comm,
                                  weftRequest_t* request);
/// Nonblocking weftBarrier.
WEFT_API weftResult_t weftIBarrier(weftComm_t comm, weftRequest_t* request);
/// Completes *request, frees it and sets *request to NULL (at once for NULL). Returns the
/// collective's result.
WEFT_API weftResult_t weftRequestWait(weftRequest_t* request);
/// Advances the communicator's requests without blocking; *done = 1 once *request is
/// complete, which frees it and sets *request to NULL (a NULL request is complete).
WEFT_API weftResult_t weftRequestTest(weftRequest_t* request, int* done);
/// Completes count requests (NULL entries are skipped), frees them and sets each to NULL.
/// Returns the first failure among them.
WEFT_API weftResult_t weftRequestWaitall(int count, weftRequest_t* requests);
/// Frees *request and sets it to NULL without waiting: a request still running completes in
/// the background of the communicator's later calls, and its buffers stay in use until then
/// (as MPI_Request_free). A communicator with requests not yet freed cannot be destroyed.
WEFT_API weftResult_t weftRequestFree(weftRequest_t* request);

/* Groups, as NCCL's ncclGroupStart/End: blocking calls (weftSend, weftRecv and the
 * collectives) made by a thread between weftGroupStart and weftGroupEnd return at once; the
 * outermost weftGroupEnd starts them all together, in the order made, and returns once all are
 * complete. So a ring exchange or sends and receives to every peer cannot deadlock. Arguments
 * are checked when each call is made; the buffers must stay untouched until weftGroupEnd
 * returns. Groups nest; nonblocking calls inside a group start at once, as outside it. Calls
 * on device buffers are not accepted inside a group (weftNotSupported). A send and a receive
 * between two ranks match in the order made (one tag), as NCCL's do. */
/// Starts (or nests) a group on this thread.
WEFT_API weftResult_t weftGroupStart(void);
/// Ends a group; the outermost End runs its calls and returns the first failure among them
/// (weftTimeout after WEFT_TIMEOUT_S when a peer never makes its matching calls).
WEFT_API weftResult_t weftGroupEnd(void);

/* Device helpers: one portable way to get device memory and streams under whatever backend
 * is active (WEFT_DEVICE: host, emulated, cuda), so programs and tests run unchanged on a CPU
 * machine with the emulated backend. Under CUDA, cudaMalloc'd memory and cudaStream_t work
 * with the collectives as well. */
/// Name of the active device backend ("host", "emulated", "cuda"); never NULL.
WEFT_API weftResult_t weftDeviceBackend(const char** name);
/// Devices the active backend has (0 for host).
WEFT_API weftResult_t weftDeviceCount(int* count);
/// Allocates bytes of device memory on the current device (the communicator's once one
/// exists). Fails with weftNotSupported on the host backend.
WEFT_API weftResult_t weftDeviceMalloc(void** ptr, size_t bytes);
/// Frees memory from weftDeviceMalloc (NULL is a no-op).
WEFT_API weftResult_t weftDeviceFree(void* ptr);
/// Copies bytes between any mix of host and device memory; returns when done.
WEFT_API weftResult_t weftDeviceMemcpy(void* dst, const void* src, size_t bytes);
/// Creates a stream of the active backend.
WEFT_API weftResult_t weftStreamCreate(weftStream_t* stream);
/// Destroys a stream after its queued work has run.
WEFT_API weftResult_t weftStreamDestroy(weftStream_t stream);
/// Blocks until the work queued on stream has run.
WEFT_API weftResult_t weftStreamSynchronize(weftStream_t stream);
/// The device comm's rank is bound to (-1 on the host backend).
WEFT_API weftResult_t weftCommDevice(const weftComm_t comm, int* device);
/// The staging pool's counters (a repeated call on device buffers allocates nothing).
WEFT_API weftResult_t weftCommStagingStats(const weftComm_t comm, weftStagingStats_t* stats);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // WEFT_WEFT_H_
