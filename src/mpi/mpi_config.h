// The MPI library a job runs: how it moves a message over verbs (eager copy
// below a threshold, zero-copy rendezvous above it), what its software path
// costs on the host, and where its collectives switch algorithm. Defaults
// follow the library each fabric ships with (mpi_defaults); every value
// cites its source or says it is an assumption (mpi_config.cpp).
#pragma once

#include <string>

#include "config/params.h"
#include "engine/units.h"

namespace rdmasim {

struct FabricConfig;

enum class Rendezvous : uint8_t {
  kGet,  // RTS; the receiver RDMA READs the data, then sends FIN (UCX get_zcopy, MVAPICH RGET)
  kPut,  // RTS; the receiver answers CTS; the sender RDMA WRITEs, then FIN (MVAPICH RPUT)
};

struct MpiConfig {
  std::string library;  // what the defaults describe, for reports
  // Messages up to this size go eager: one SEND into a pre-posted receive
  // buffer, copied in and out on the hosts. Larger ones use rendezvous.
  Bytes eager_threshold = Bytes(8192);
  // Eager messages up to this size are copied into a registered buffer by
  // the sender, whose send then completes at once (UCX bcopy); larger eager
  // messages go from the user's buffer and complete when acknowledged
  // (zcopy). Above eager_threshold it has no effect.
  Bytes bcopy_threshold = Bytes(8192);
  Rendezvous rendezvous = Rendezvous::kGet;
  // The library's header on an eager message; RTS, CTS and FIN are this size too.
  Bytes header = Bytes(32);
  // Host CPU time of the send path (MPI_Isend to the doorbell) and of the
  // receive path (polling the completion, matching, completing the request).
  Time send_overhead = Time::from_ns(100);
  Time recv_overhead = Time::from_ns(100);
  // memcpy rate of one core: the eager path copies into the registered
  // buffer on the sender (bcopy) and out of it on the receiver.
  Rate copy_rate = Rate::from_gbps(160);  // 20 GB/s
  // The rate a core reduces two float vectors (host-staged MPI_Allreduce).
  Rate reduce_rate = Rate::from_gbps(40);  // 5 GB/s
  // Collective algorithm switch points (MPICH's, which MVAPICH and Intel MPI
  // inherit): recursive doubling up to allreduce_short, Rabenseifner above;
  // alltoall by Bruck up to alltoall_short (with 8 ranks or more), all
  // messages at once up to alltoall_medium, pairwise exchange above.
  Bytes allreduce_short = Bytes(2048);
  Bytes alltoall_short = Bytes(256);
  Bytes alltoall_medium = Bytes(32768);

  template <class V>
  void visit(V& v) {
    v.size({"eager_threshold", "largest message sent eagerly; larger ones use rendezvous"}, eager_threshold,
           int64_t{1} << 30);
    v.size({"bcopy_threshold",
            "eager messages up to this size are copied by the sender (bcopy); larger: zero-copy"},
           bcopy_threshold, int64_t{1} << 30);
    v.choice({"rendezvous", "get: receiver RDMA READs (UCX, RGET) | put: RTS/CTS then RDMA WRITE (RPUT)"},
             rendezvous, {{"get", Rendezvous::kGet}, {"put", Rendezvous::kPut}});
    v.size({"header", "MPI header on eager messages; RTS/CTS/FIN size"}, header, 4096);
    v.time({"send_overhead", "host CPU time per send (MPI_Isend to doorbell)"}, send_overhead);
    v.time({"recv_overhead", "host CPU time per receive (poll, match, complete)"}, recv_overhead);
    v.rate({"copy_rate", "one core's memcpy rate (eager bounce-buffer copies)"}, copy_rate);
    v.rate({"reduce_rate", "one core's float reduction rate (host-staged allreduce)"}, reduce_rate);
    v.size({"allreduce_short", "allreduce: recursive doubling up to this size, Rabenseifner above"},
           allreduce_short, int64_t{1} << 30);
    v.size({"alltoall_short", "alltoall: Bruck up to this size per rank (8+ ranks)"}, alltoall_short,
           int64_t{1} << 30);
    v.size({"alltoall_medium", "alltoall: all messages at once up to this size, pairwise above"},
           alltoall_medium, int64_t{1} << 30);
  }
};

// The library a fabric's hosts run by default, and the source of each value
// (key -> "source" lines, as profiles list theirs).
[[nodiscard]] MpiConfig mpi_defaults(const FabricConfig& fabric);
struct MpiSource {
  const char* key;
  std::string value;
  const char* source;
};
[[nodiscard]] std::vector<MpiSource> mpi_sources(const FabricConfig& fabric);

// Throws std::invalid_argument naming the key for settings no library runs
// with (a zero copy rate, alltoall_medium below alltoall_short, ...).
void check_mpi_config(const MpiConfig& c);

}  // namespace rdmasim
