// Congestion control plug-ins. One class per algorithm, chosen by name; the
// transport calls these hooks and enforces what they decide: a pacing rate
// and/or a window per QP (connection).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/units.h"
#include "net/int_telemetry.h"
#include "net/packet.h"

namespace rdmasim {

struct RcConnection;

// What a CC algorithm may ask of the transport.
class CcHost {
 public:
  [[nodiscard]] virtual Time now() const = 0;
  // Calls on_timer(conn, tag) at `at`.
  virtual void schedule_cc_timer(RcConnection& c, Time at, uint32_t tag) = 0;
  [[nodiscard]] virtual Rate line_rate(const RcConnection& c) const = 0;
  [[nodiscard]] virtual int64_t mtu() const = 0;  // payload bytes per packet
  // The INT stack an ACK carries (nullptr: none).
  [[nodiscard]] virtual const IntStack* telemetry(const Packet& p) const = 0;

 protected:
  ~CcHost() = default;
};

class CongestionControl {
 public:
  virtual ~CongestionControl() = default;
  [[nodiscard]] virtual const char* name() const = 0;
  // Whether receivers must return CNPs for CE-marked packets, and at most how
  // often per QP (the NP side of DCQCN).
  [[nodiscard]] virtual bool wants_cnp() const { return false; }
  [[nodiscard]] virtual Time cnp_interval() const { return Time::zero(); }
  // Whether data packets must collect in-band telemetry (HPCC).
  [[nodiscard]] virtual bool wants_int() const { return false; }

  virtual void on_connect(RcConnection& c) = 0;
  virtual void on_send(RcConnection& c, const Packet& p) {}
  virtual void on_ack(RcConnection& c, const Packet& ack) {}
  virtual void on_cnp(RcConnection& c) {}
  virtual void on_timer(RcConnection& c, uint32_t tag) {}

  void attach(CcHost* host) { host_ = host; }

 protected:
  CcHost* host_ = nullptr;
};

}  // namespace rdmasim
