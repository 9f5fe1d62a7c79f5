// What an MPI rank does, as a list of steps the engine (mpi_engine.h) runs in
// order: nonblocking sends and receives, a wait for all of them, host compute
// and the benchmark's timer marks. OSU benchmarks, host-staged collectives and
// application patterns are all written as such lists, so one engine times
// them all the same way.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/units.h"

namespace rdmasim {

struct MpiStep {
  enum class Kind : uint8_t {
    kIsend,       // MPI_Isend of `bytes` to `peer`
    kIrecv,       // MPI_Irecv of `bytes` from `peer`
    kWaitAll,     // MPI_Waitall on every request this rank has open
    kCompute,     // the host's CPU busy for `time` (a reduction, a solver sweep)
    kTimerStart,  // the benchmark reads MPI_Wtime before the timed part
    kTimerStop,   // ... and after it: the difference counts once skip is over
  };
  Kind kind = Kind::kWaitAll;
  int peer = 0;
  int64_t bytes = 0;
  Time time;

  static MpiStep isend(int peer, int64_t bytes) { return {Kind::kIsend, peer, bytes, {}}; }
  static MpiStep irecv(int peer, int64_t bytes) { return {Kind::kIrecv, peer, bytes, {}}; }
  static MpiStep wait_all() { return {Kind::kWaitAll, 0, 0, {}}; }
  static MpiStep compute(Time t) { return {Kind::kCompute, 0, 0, t}; }
  static MpiStep timer_start() { return {Kind::kTimerStart, 0, 0, {}}; }
  static MpiStep timer_stop() { return {Kind::kTimerStop, 0, 0, {}}; }
};

// One rank's steps for one iteration.
using MpiBody = std::vector<MpiStep>;

// A measured block: every rank runs its body `skip + iterations` times; only
// the last `iterations` are timed (OSU's warm-up, -x). Phases run one after
// another, each starting when every rank has finished the one before (as
// OSU's benchmarks put a barrier between message sizes).
struct MpiPhase {
  int64_t size = 0;  // the message size the phase measures (for the table)
  int skip = 0;
  int iterations = 1;
  std::vector<MpiBody> body;  // one per rank
};

// What a phase measured on one rank: the timed spans summed, and how many.
struct MpiRankTimer {
  Time total;
  int64_t spans = 0;
};

}  // namespace rdmasim
