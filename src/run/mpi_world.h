// The MPI job this process is part of, for `mpirun -np N rdmasim sweep ...`
// (Debian's Open MPI). MPI is initialised only when the process was started
// by an MPI launcher (it sets OMPI_COMM_WORLD_SIZE or PMIX_RANK); otherwise
// this is a world of one rank and no MPI call is made, so every other use of
// rdmasim is untouched by it. One object per process, for the command's life.
#pragma once

#include <string>
#include <vector>

namespace rdmasim {

class MpiWorld {
 public:
  // Throws std::runtime_error when started by a launcher but built without MPI.
  MpiWorld();
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  // Whether an MPI launcher started this process.
  [[nodiscard]] static bool launched();
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  // Rank 0's `value`, on every rank.
  [[nodiscard]] int broadcast(int value) const;
  // Every rank's `mine`, in rank order, on rank 0 (empty elsewhere).
  [[nodiscard]] std::vector<std::string> gather(const std::string& mine) const;

 private:
  int rank_ = 0;
  int size_ = 1;
  bool initialised_ = false;
};

}  // namespace rdmasim
