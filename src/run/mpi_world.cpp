#include "run/mpi_world.h"

#include <cstdlib>
#include <limits>
#include <stdexcept>

#ifdef RDMASIM_HAVE_MPI
#define OMPI_SKIP_MPICXX 1  // the C API only: Open MPI's deprecated C++ bindings warn under -Wextra
#include <mpi.h>
#endif

namespace rdmasim {

bool MpiWorld::launched() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

#ifdef RDMASIM_HAVE_MPI

MpiWorld::MpiWorld() {
  if (!launched()) return;
  int provided = 0;
  // Only the main thread calls MPI; the cells run on the thread pool in between.
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  if (initialised_) MPI_Finalize();
}

int MpiWorld::broadcast(int value) const {
  if (size_ > 1) MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return value;
}

std::vector<std::string> MpiWorld::gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
  if (mine.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error("MPI gather: a rank's results exceed 2 GiB");
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank_ == 0 ? size_ : 0);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets(lens.size());
  std::string all;
  if (rank_ == 0) {
    long long total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[r] = static_cast<int>(total);
      total += lens[r];
    }
    if (total > std::numeric_limits<int>::max())
      throw std::runtime_error("MPI gather: the merged results exceed 2 GiB");
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0,
              MPI_COMM_WORLD);
  std::vector<std::string> out;
  for (int r = 0; rank_ == 0 && r < size_; ++r) out.push_back(all.substr(offsets[r], lens[r]));
  return out;
}

#else

MpiWorld::MpiWorld() {
  if (launched())
    throw std::runtime_error(
        "started by mpirun, but this rdmasim was built without MPI (install libopenmpi-dev and rebuild: make "
        "deps build)");
}

MpiWorld::~MpiWorld() = default;

int MpiWorld::broadcast(int value) const { return value; }

std::vector<std::string> MpiWorld::gather(const std::string& mine) const { return {mine}; }

#endif

}  // namespace rdmasim
