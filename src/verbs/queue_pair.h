// The verbs boundary. Workloads (and, later, collectives) create QPs, post
// work requests and receive completions; they never see packets, ports or
// the fabric underneath, which is what lets the same workload run over any
// fabric ("same verbs, different lossless story").
#pragma once

#include <cstdint>

#include "fabric/fabric.h"
#include "transport/rc.h"

namespace rdmasim {

class QueuePair {
 public:
  // An RC QP from host `src` to host `dst`; completions go to `sink`.
  static QueuePair create(Fabric& f, int src, int dst, CompletionSink* sink) {
    return QueuePair(f.rc(), f.rc().connect(src, dst, sink, f.config().rc.data_tc));
  }
  QueuePair(RcEngine& rc, uint32_t id) : rc_(&rc), id_(id) {}

  void post_write(int64_t bytes, uint64_t wr_id) { rc_->post(id_, Opcode::kWrite, bytes, wr_id); }
  void post_read(int64_t bytes, uint64_t wr_id) { rc_->post(id_, Opcode::kRead, bytes, wr_id); }
  void post_send(int64_t bytes, uint64_t wr_id) { rc_->post(id_, Opcode::kSend, bytes, wr_id); }
  void post(Opcode op, int64_t bytes, uint64_t wr_id) { rc_->post(id_, op, bytes, wr_id); }
  // Receive WQEs at the remote (responder) end, consumed one per SEND.
  void post_recv(int64_t n) { rc_->post_recv(id_, n); }

  [[nodiscard]] uint32_t id() const { return id_; }
  [[nodiscard]] int src() const { return rc_->connection(id_).src; }
  [[nodiscard]] int dst() const { return rc_->connection(id_).dst; }

 private:
  RcEngine* rc_;
  uint32_t id_;
};

}  // namespace rdmasim
