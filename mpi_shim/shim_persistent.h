// Which persistent collectives this MPI has: MPI 4's MPI_*_init, or Open MPI 4.1's MPIX_*_init
// where its extension is built. WEFT_PCOLL(Allreduce) names the C entry point, WEFT_PPCOLL the
// profiling one; WEFT_HAVE_PCOLL is set where there are any.
#pragma once

#include <mpi.h>

#if MPI_VERSION >= 4
#define WEFT_PCOLL(name) MPI_##name##_init
#define WEFT_PPCOLL(name) PMPI_##name##_init
#define WEFT_HAVE_PCOLL 1
#elif defined(OPEN_MPI)
#include <mpi-ext.h>  // defines OMPI_HAVE_MPI_EXT_PCOLLREQ where the extension is built
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define WEFT_PCOLL(name) MPIX_##name##_init
#define WEFT_PPCOLL(name) PMPIX_##name##_init
#define WEFT_HAVE_PCOLL 1
#endif
#endif
