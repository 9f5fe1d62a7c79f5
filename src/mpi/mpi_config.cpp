#include "mpi/mpi_config.h"

#include <stdexcept>

#include "config/units_parse.h"
#include "fabric/fabric.h"

namespace rdmasim {
namespace {

enum class Library : uint8_t { kUcx, kOpenibIwarp, kLibfabricUet };

Library library_of(const FabricConfig& f) {
  if (f.transport == "iwarp") return Library::kOpenibIwarp;
  if (f.transport == "uet") return Library::kLibfabricUet;
  return Library::kUcx;
}

}  // namespace

namespace {

// Where each library's protocol figures come from.
constexpr const char* kUcxFaq =
    "UCX docs/source/faq.md 'Protocol selection' (UCX 1.13, OSU 5.6.2 osu_bw, inter-node rc_mlx5): eager "
    "short to 2007 B, eager bcopy to 8246 B, eager zcopy to 17297 B, 'rendezvous zero-copy read from remote' "
    "from 17298 B (UCX_RNDV_THRESH=auto, UCX_RNDV_SCHEME=auto picks get_zcopy for host memory)";
constexpr const char* kOpenib =
    "Open MPI 4.1 opal/mca/btl/openib/btl_openib_mca.c: btl_eager_limit = btl_rndv_eager_limit = 12 KiB; "
    "pml ob1 sends eagerly up to it (copied into BTL fragments) and takes RDMA-read (RGET) above it for "
    "registered buffers; IB goes to UCX since Open MPI 4.0, openib stays the path for iWARP (Chelsio T5/T6 "
    "entries in mca-btl-openib-device-params.ini set no other limit)";
constexpr const char* kUetAssumption =
    "assumption: no UET MPI library has published its defaults; 16 KiB eager with RDMA-read rendezvous, in "
    "the range of UCX's (17 KiB) and MVAPICH2's (12-17 KiB) thresholds";
constexpr const char* kMpich =
    "MPICH MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE 2048, MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE 256, "
    "MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE 32768 (Thakur, Rabenseifner and Gropp 2005)";

}  // namespace

MpiConfig mpi_defaults(const FabricConfig& fabric) {
  MpiConfig c;
  switch (library_of(fabric)) {
    case Library::kUcx:
      c.library = "Open MPI + UCX (rc_mlx5)";
      c.eager_threshold = Bytes(17297);
      c.bcopy_threshold = Bytes(8246);
      c.rendezvous = Rendezvous::kGet;
      break;
    case Library::kOpenibIwarp:
      c.library = "Open MPI ob1 + openib BTL (iWARP)";
      c.eager_threshold = Bytes(12288);
      c.bcopy_threshold = Bytes(12288);
      c.rendezvous = Rendezvous::kGet;
      break;
    case Library::kLibfabricUet:
      c.library = "libfabric (UET provider)";
      c.eager_threshold = Bytes(16384);
      c.bcopy_threshold = Bytes(8192);
      c.rendezvous = Rendezvous::kGet;
      break;
  }
  return c;
}

std::vector<MpiSource> mpi_sources(const FabricConfig& fabric) {
  const MpiConfig c = mpi_defaults(fabric);
  const Library lib = library_of(fabric);
  const char* proto = lib == Library::kUcx           ? kUcxFaq
                      : lib == Library::kOpenibIwarp ? kOpenib
                                                     : kUetAssumption;
  std::vector<MpiSource> s;
  s.push_back({"eager_threshold", format_bytes(c.eager_threshold), proto});
  s.push_back({"bcopy_threshold", format_bytes(c.bcopy_threshold), proto});
  s.push_back({"rendezvous", c.rendezvous == Rendezvous::kGet ? "get" : "put", proto});
  s.push_back({"header", format_bytes(c.header),
               "assumption: tag, source, communicator and length, as MPI libraries' eager headers carry"});
  s.push_back({"send_overhead", format_time(c.send_overhead),
               "assumption: the library's send path on a modern core (LogGP o of order 0.1 us)"});
  s.push_back({"recv_overhead", format_time(c.recv_overhead), "assumption: as send_overhead"});
  s.push_back({"copy_rate", format_rate(c.copy_rate),
               "assumption: 20 GB/s, between one core's DRAM stream copy (about 10 GB/s) and its copy of "
               "cache-resident buffers, which eager buffers are when reused"});
  s.push_back({"reduce_rate", format_rate(c.reduce_rate),
               "assumption: 5 GB/s, one core summing float vectors from memory, a quarter of its copy rate "
               "(two streams in, one out, and the add)"});
  s.push_back({"allreduce_short", format_bytes(c.allreduce_short), kMpich});
  s.push_back({"alltoall_short", format_bytes(c.alltoall_short), kMpich});
  s.push_back({"alltoall_medium", format_bytes(c.alltoall_medium), kMpich});
  return s;
}

void check_mpi_config(const MpiConfig& c) {
  if (c.copy_rate.bps() <= 0) throw std::invalid_argument("copy_rate: expected a positive rate");
  if (c.reduce_rate.bps() <= 0) throw std::invalid_argument("reduce_rate: expected a positive rate");
  if (c.header.count() < 1)
    throw std::invalid_argument("header: expected at least 1 B (the tag travels in it)");
  if (c.send_overhead < Time::zero() || c.recv_overhead < Time::zero())
    throw std::invalid_argument("send_overhead/recv_overhead: expected a time >= 0");
  if (c.alltoall_medium < c.alltoall_short)
    throw std::invalid_argument("alltoall_medium: expected a size >= alltoall_short");
}

}  // namespace rdmasim
