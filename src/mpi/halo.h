// The `halo3d` workload type: an MPI application's time step, the pattern
// of stencil codes and iterative solvers. Ranks form a periodic 3-D grid
// (MPI_Dims_create's balanced factorisation unless `grid` is given); each
// step computes for `compute`, then exchanges one face of `face` bytes with
// each of its six neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall), then, for a
// solver step, sums `allreduce` bytes over all ranks (a dot product's
// MPI_Allreduce). It reports the time per step and the share of it spent
// communicating.
#pragma once

#include <array>
#include <vector>

#include "mpi/mpi_config.h"
#include "mpi/program.h"
#include "workload/workload.h"

namespace rdmasim {

struct HaloParams final : WorkloadParams {
  int ranks = 0;              // 0: every host
  std::array<int, 3> grid{};  // all 0: MPI_Dims_create
  int64_t face = 64 << 10;    // bytes per face
  Time compute = Time::from_us(100);
  int64_t allreduce = 0;  // 0: halo only
  int steps = 20;
  int warmup = 2;
  MpiConfig mpi;
};

// MPI_Dims_create(p, 3): the most balanced grid, largest dimension first.
[[nodiscard]] std::array<int, 3> balanced_grid(int p);
// Rank r's steps of one time step on `grid`.
[[nodiscard]] MpiBody halo_step(int r, const std::array<int, 3>& grid, const HaloParams& p);

[[nodiscard]] const WorkloadType& halo_workload_type();

}  // namespace rdmasim
