// A switch's shared packet buffer, carved as Broadcom and NVIDIA Spectrum
// switches describe theirs:
//  - lossy traffic classes are admitted at egress by the dynamic-threshold
//    rule of Choudhury & Hahne (IEEE/ACM ToN 1998): a queue may grow while its
//    length is below alpha x (free shared buffer);
//  - lossless (PFC) classes are accounted at ingress per priority group (PG =
//    ingress port x priority): first the PG's reserved bytes, then the shared
//    pool up to the XOFF threshold, then the PG's headroom, which absorbs what
//    is still on the wire after PAUSE is sent. A lossless packet that finds
//    its headroom full is dropped and counted: that only happens when PFC is
//    misconfigured (headroom too small, XOFF too high).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/tc_scheduler.h"

namespace rdmasim {

struct MmuConfig {
  uint64_t buffer_bytes = 32ull << 20;  // HPCC paper's 32 MB switch buffer
  // SONiC's default egress_lossy_profile uses dynamic_th 3, i.e. alpha = 2^3.
  double alpha = 8.0;
  // An ideal switch: admits everything whatever the buffer size says. Used by
  // the `ideal` reference profile, so a scenario's buffer cannot make it drop.
  bool unlimited = false;

  // PFC (IEEE 802.1Qbb). Bit i set: traffic class i is lossless.
  uint8_t lossless_mask = 0;
  uint64_t pg_reserved_bytes = 0;  // guaranteed per lossless PG
  // XOFF threshold per PG: static bytes, or (when 0) dynamic: pfc_alpha x
  // free shared buffer (HPCC simulator: free buffer / 8).
  uint64_t xoff_bytes = 0;
  double pfc_alpha = 1.0 / 8;
  // Resume once a PG is this far below its XOFF threshold (hysteresis that
  // keeps XOFF/XON from chattering): two maximum-size frames.
  uint64_t xon_offset_bytes = 2 * 1542;
};

class Mmu {
 public:
  Mmu(const MmuConfig& cfg, size_t num_ports)
      : cfg_(cfg), queue_bytes_(num_ports), pg_(num_ports), port_lossless_(num_ports, cfg.lossless_mask) {}

  // Per-port headroom for each lossless PG (depends on the link's rate and
  // length); call once per port before traffic starts.
  void set_headroom(uint16_t port, uint64_t bytes);
  [[nodiscard]] uint64_t headroom(uint16_t port) const { return pg_[port][0].headroom_size; }

  // Whether class `tc` arriving on `in_port` is lossless there: the
  // switch's PFC classes, unless the port is configured otherwise.
  [[nodiscard]] bool lossless(uint16_t in_port, uint8_t tc) const {
    // Every port alike (all but misconfigured runs): no per-port lookup.
    const uint8_t mask = per_port_ ? port_lossless_[in_port] : cfg_.lossless_mask;
    return (mask >> tc) & 1u;
  }
  // A port whose PFC is off (0) or on other priorities than the switch's
  // (misconfig:); call before traffic starts.
  void set_port_lossless(uint16_t port, uint8_t mask) {
    port_lossless_[port] = mask;
    per_port_ = per_port_ || mask != cfg_.lossless_mask;
    pool_ready_ = false;
  }
  [[nodiscard]] uint8_t port_lossless(uint16_t port) const { return port_lossless_[port]; }

  enum class Verdict : uint8_t { kAdmit, kDropLossy, kDropLossless };
  // Admits a packet arriving on `in_port` for egress `out_port`, accounting it.
  Verdict admit(uint16_t in_port, uint16_t out_port, uint8_t tc, uint32_t bytes);
  // The packet (admitted with these ports) leaves the buffer.
  void release(uint16_t in_port, uint16_t out_port, uint8_t tc, uint32_t bytes);

  // PFC decisions for a lossless PG after an admit or a release.
  [[nodiscard]] bool should_pause(uint16_t in_port, uint8_t tc) const;
  [[nodiscard]] bool should_resume(uint16_t in_port, uint8_t tc) const;
  void set_paused(uint16_t in_port, uint8_t tc, bool paused) { pg_[in_port][tc].paused = paused; }
  [[nodiscard]] bool paused(uint16_t in_port, uint8_t tc) const { return pg_[in_port][tc].paused; }

  [[nodiscard]] uint64_t used() const { return used_; }
  [[nodiscard]] uint64_t peak() const { return peak_; }
  [[nodiscard]] uint64_t egress_bytes(uint16_t port, uint8_t tc) const { return queue_bytes_[port][tc]; }
  [[nodiscard]] uint64_t pg_bytes(uint16_t port, uint8_t tc) const {
    const Pg& g = pg_[port][tc];
    return g.reserved + g.shared + g.headroom;
  }
  [[nodiscard]] uint64_t shared_pool() const { return shared_pool_; }
  [[nodiscard]] uint64_t shared_used() const { return shared_used_; }
  [[nodiscard]] const MmuConfig& config() const { return cfg_; }
  // Current XOFF threshold of a PG (shared bytes above its reservation).
  [[nodiscard]] uint64_t xoff_threshold() const;

 private:
  struct Pg {
    uint64_t reserved = 0;  // bytes held in the PG's reservation
    uint64_t shared = 0;    // bytes held in the shared pool
    uint64_t headroom = 0;  // bytes held in headroom
    uint64_t headroom_size = 0;
    bool paused = false;  // we sent XOFF and have not yet sent XON
  };
  void recompute_pool();

  MmuConfig cfg_;
  std::vector<std::array<uint64_t, kNumTcs>> queue_bytes_;  // egress
  std::vector<std::array<Pg, kNumTcs>> pg_;                 // ingress (lossless)
  std::vector<uint8_t> port_lossless_;                      // per ingress port: lossless classes
  uint64_t shared_pool_ = 0;                                // buffer minus reservations and headroom
  uint64_t shared_used_ = 0;
  uint64_t used_ = 0;  // every byte in the buffer
  uint64_t peak_ = 0;
  bool pool_ready_ = false;
  bool per_port_ = false;  // some port's lossless classes differ from cfg_'s
};

}  // namespace rdmasim
