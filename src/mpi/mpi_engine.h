// MPI point-to-point over verbs, and the rank programs that use it.
//
// Each rank is one host. A message of `bytes` from rank S to rank D:
//   eager (bytes <= eager_threshold): S SENDs header + data on QP S->D. Up
//     to bcopy_threshold S first copies it into a registered buffer and the
//     send is complete once posted; above, it goes zero-copy and completes
//     when the SEND is acknowledged.
//     D matches it against its posted receives (or keeps it as unexpected
//     until one is posted) and copies it out.
//   rendezvous get: S SENDs an RTS; once D has a matching receive, D RDMA
//     READs the data over QP D->S, completes the receive and SENDs a FIN,
//     which completes S's send.
//   rendezvous put: D answers the RTS with a CTS; S RDMA WRITEs the data and
//     SENDs a FIN behind it on the same QP; the WRITE's acknowledgement
//     completes S's send, the FIN D's receive.
// Messages between two ranks match in the order they were sent (MPI's
// non-overtaking rule); RC delivers in order, so FIFO matching per pair is
// exact for programs that post receives in the order their peer sends.
//
// Each rank has one CPU: send and receive overheads and eager copies queue
// on it, so a window of small sends is paced by the send path, as OSU's
// message-rate tests see on real hosts.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/simulation.h"
#include "mpi/mpi_config.h"
#include "mpi/program.h"
#include "verbs/verbs.h"

namespace rdmasim {

struct MpiCounters {
  uint64_t eager_messages = 0;
  uint64_t rendezvous_messages = 0;
  uint64_t unexpected = 0;  // arrived before their receive was posted
  int64_t payload_bytes = 0;
};

class MpiEngine final : public CompletionSink, public EventHandler {
 public:
  // `hosts[r]` is rank r's host.
  MpiEngine(Simulation& sim, const Verbs& verbs, std::vector<int> hosts, const MpiConfig& cfg);
  MpiEngine(const MpiEngine&) = delete;
  MpiEngine& operator=(const MpiEngine&) = delete;

  // Runs the phases one after another from now. Throws std::logic_error for
  // a body per rank that does not match the number of ranks.
  void start(std::vector<MpiPhase> phases);
  [[nodiscard]] bool done() const { return started_ && phase_ >= phases_.size(); }
  [[nodiscard]] double done_fraction() const;
  [[nodiscard]] int ranks() const { return static_cast<int>(ranks_.size()); }
  [[nodiscard]] const std::vector<MpiPhase>& phases() const { return phases_; }
  // timers()[phase][rank]: what each rank's timer marks measured.
  [[nodiscard]] const std::vector<std::vector<MpiRankTimer>>& timers() const { return timers_; }
  // When each phase ended (all ranks through its last iteration).
  [[nodiscard]] const std::vector<Time>& phase_ends() const { return phase_end_; }
  [[nodiscard]] const MpiCounters& counters() const { return counters_; }
  [[nodiscard]] const MpiConfig& config() const { return cfg_; }

  void on_complete(const Completion& c) override;
  void on_receive(const Completion& c) override;
  void on_event(uint32_t kind, uint64_t arg) override;

 private:
  struct Rank {
    int host = 0;
    size_t pc = 0;
    int iteration = 0;
    int pending = 0;  // open requests (MPI_Waitall waits for all)
    bool waiting = false;
    bool finished = false;
    Time cpu;  // when its core is next free
    Time mark;
  };
  struct Message {
    int src = 0, dst = 0;
    int64_t bytes = 0;
    bool eager = false;
    bool bcopy = false;  // eager and copied by the sender: complete once posted
    // Events that must still see the slot: the match, and the sender's
    // acknowledgement for a zero-copy eager send or a put's WRITE.
    uint8_t refs = 0;
  };
  struct Pair {  // rank S to rank D
    QueuePair qp;
    bool open = false;
    std::deque<int64_t> posted;       // D's receives not yet matched (their sizes)
    std::deque<uint32_t> unexpected;  // S's messages arrived before a receive
  };

  void begin_phase();
  void advance(int r);
  void issue_send(int src, int dst, int64_t bytes);
  void issue_recv(int dst, int src, int64_t bytes);
  void matched(uint32_t m, int64_t posted_bytes);
  void request_done(int r);
  void finish_rank(int r);
  Pair& pair(int src, int dst);
  [[nodiscard]] Time cpu_after(int r, Time cost);
  uint32_t new_message(int src, int dst, int64_t bytes);
  void release(uint32_t m);

  Simulation& sim_;
  Verbs verbs_;
  MpiConfig cfg_;
  std::vector<Rank> ranks_;
  std::unordered_map<uint64_t, Pair> pairs_;  // key src * ranks + dst, made on first use
  std::vector<Message> msgs_;
  std::vector<uint32_t> free_msgs_;
  std::vector<MpiPhase> phases_;
  std::vector<std::vector<MpiRankTimer>> timers_;
  std::vector<Time> phase_end_;
  size_t phase_ = 0;
  bool started_ = false;
  int ranks_left_ = 0;
  MpiCounters counters_;
};

}  // namespace rdmasim
