// Host-staged MPI collectives as point-to-point steps, with the algorithms
// and switch points of MPICH (which MVAPICH and Intel MPI inherit):
//   MPI_Barrier: dissemination, ceil(log2 p) rounds of zero-byte messages
//     (Hensgen, Finkel and Manber 1988).
//   MPI_Allreduce: recursive doubling up to allreduce_short bytes;
//     Rabenseifner's reduce-scatter (recursive halving) + allgather
//     (recursive doubling) above it (Thakur, Rabenseifner and Gropp 2005).
//     A non-power-of-two p first folds its extra ranks into partners.
//   MPI_Alltoall: Bruck up to alltoall_short per rank with 8 or more ranks,
//     all messages posted at once up to alltoall_medium, pairwise exchange
//     above (Thakur et al. 2005).
// Reductions are compute steps at the library's reduce_rate: the data is on
// the host (no GPU offload), as on fabrics where MPI stages through host memory.
#pragma once

#include <cstdint>

#include "mpi/mpi_config.h"
#include "mpi/program.h"

namespace rdmasim {

// Each appends rank `r`'s steps (of `p` ranks) to `body`.
void append_barrier(MpiBody& body, int r, int p);
void append_allreduce(MpiBody& body, int r, int p, int64_t bytes, const MpiConfig& c);
// `bytes`: what each rank sends to each other rank.
void append_alltoall(MpiBody& body, int r, int p, int64_t bytes, const MpiConfig& c);

// Which algorithm MPICH's switch points pick, for reports.
[[nodiscard]] const char* allreduce_algorithm(int p, int64_t bytes, const MpiConfig& c);
[[nodiscard]] const char* alltoall_algorithm(int p, int64_t bytes, const MpiConfig& c);

}  // namespace rdmasim
