// What watches PFC pauses on a lossless Ethernet fabric, polled like a
// switch OS polls its queue counters rather than per packet:
// - the PFC watchdog on every switch egress queue of a lossless class (as
//   SONiC's pfcwd does it): a queue paused by its peer without a break for
//   detection_time while it holds packets is declared stormed; its action
//   drops what it holds and what arrives for it, or forwards ignoring the
//   pauses; once no pause has been in force for restoration_time it is
//   restored;
// - cyclic buffer dependency (PFC deadlock): the wait-for graph of egress
//   queues that have been paused, non-empty and not draining for
//   deadlock_detection; a cycle ends the run, reported by port names;
// - a stuck receiver: a NIC port that asserts XOFF forever (a fault).
// The watchdog's polls run only while some port is paused (Network wakes
// them). The deadlock search adds no events at all: it runs when a switch
// re-sends an XOFF (a pause that has outlasted half its quanta, which a
// deadlocked PG does forever), at most a few times per deadlock_detection,
// so that runs without long pauses pay nothing and their event counts stay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/simulation.h"
#include "net/network.h"

namespace rdmasim {

// Defaults: SONiC's (sonic-utilities pfcwd/main.py DEFAULT_DETECTION_TIME,
// DEFAULT_RESTORATION_TIME, DEFAULT_POLL_INTERVAL, DEFAULT_ACTION).
struct PfcWatchdogConfig {
  enum class Action : uint8_t { kDrop, kForward };
  bool enabled = false;
  Time detection_time = Time::from_ms(200);
  Time restoration_time = Time::from_ms(200);
  Time polling_interval = Time::from_ms(200);
  Action action = Action::kDrop;
};

struct PfcWatchConfig {
  PfcWatchdogConfig watchdog;
  Time deadlock_detection = Time::zero();  // zero: not looked for
  uint8_t lossless_mask = 0;
};

// One watchdog transition of one queue.
struct WatchdogEvent {
  Time at;
  Time paused_since;  // storm: when the pause that stormed began
  std::string port;   // "node:port"
  uint8_t tc = 0;
  bool storm = true;  // false: restored
};

struct DeadlockReport {
  Time at;
  std::vector<std::string> cycle;          // "sw0:1 prio3", in wait-for order
  [[nodiscard]] std::string text() const;  // "a -> b -> ... -> a"
};

class PfcWatch final : public EventHandler, public PauseWatcher {
 public:
  static constexpr size_t kMaxLog = 100'000;  // watchdog transitions kept (later ones counted only)

  PfcWatch(Simulation& sim, Network& net, PfcWatchConfig cfg);
  PfcWatch(const PfcWatch&) = delete;
  PfcWatch& operator=(const PfcWatch&) = delete;

  void wake() override;
  void refreshed() override;
  void on_event(uint32_t kind, uint64_t arg) override;

  // At `at`, NIC port `port` stops draining (XOFF on every lossless class,
  // refreshed) or drains again (XON).
  void schedule_stuck(Time at, Port& port, bool stuck);

  [[nodiscard]] const PfcWatchConfig& config() const { return cfg_; }
  [[nodiscard]] const std::optional<DeadlockReport>& deadlock() const { return deadlock_; }
  [[nodiscard]] const std::vector<WatchdogEvent>& watchdog_log() const { return log_; }
  [[nodiscard]] Time tick() const { return tick_; }

 private:
  static constexpr uint32_t kTick = 0;
  static constexpr uint32_t kStuck = 1;
  static constexpr uint32_t kUnstuck = 2;

  void poll_watchdog(Time now);
  bool find_deadlock(Time now);
  void note(Time at, Time since, const Port& p, uint8_t tc, bool storm);

  Simulation& sim_;
  Network& net_;
  PfcWatchConfig cfg_;
  Time tick_ = Time::zero();
  Time next_deadlock_check_ = Time::zero();
  bool armed_ = false;
  std::vector<Port*> ports_;                    // every switch port
  std::unordered_map<const Port*, int> index_;  // into ports_
  std::vector<uint8_t> stormed_;                // per port: classes in storm
  int storms_in_force_ = 0;
  std::vector<Port*> stuck_ports_;
  std::vector<WatchdogEvent> log_;
  std::optional<DeadlockReport> deadlock_;
  // The deadlock search's scratch, kept between checks.
  std::vector<int8_t> state_;
  std::vector<int> stack_, edge_at_;
};

}  // namespace rdmasim
