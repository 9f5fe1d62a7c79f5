// output.pcap: the frames chosen ports transmit, in a time window, up to a
// count, as a pcap file Wireshark and tshark open. Taps only the ports the
// filter names, so the rest of the fabric runs as without a capture.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "config/scenario.h"
#include "metrics/pcap_frames.h"
#include "net/port.h"

namespace rdmasim {

class Fabric;

class PcapCapture final : public PortTap {
 public:
  // Installs itself on the ports `spec` names (every port when none);
  // `run_end` closes a window left open (spec.end zero). The capture must
  // outlive the run.
  PcapCapture(Fabric& fabric, const PcapSpec& spec, Time run_end);
  ~PcapCapture();
  PcapCapture(const PcapCapture&) = delete;
  PcapCapture& operator=(const PcapCapture&) = delete;

  void on_transmit(const Port& port, const Packet& p, Time first_bit) override;
  void on_link_frame(const Port& port, Time first_bit) override;

  // The whole file: the nanosecond-resolution pcap header, then the records.
  [[nodiscard]] std::string file() const;
  [[nodiscard]] uint64_t packets() const { return packets_; }
  // Frames in the window after max_packets was reached (not recorded).
  [[nodiscard]] uint64_t over_cap() const { return over_cap_; }
  // InfiniBand flow-control packets in the window: counted, not recorded
  // (see metrics/pcap_frames.h).
  [[nodiscard]] uint64_t link_packets_skipped() const { return skipped_; }
  [[nodiscard]] uint32_t link_type() const { return frames_.link_type(); }
  // The ports the filter names (every port when it names none).
  [[nodiscard]] const std::vector<Port*>& ports() const { return ports_; }

 private:
  Fabric& fabric_;
  Time start_, end_;
  uint64_t max_packets_;
  uint32_t snaplen_;
  FrameBuilder frames_;
  std::vector<Port*> ports_;
  std::vector<uint8_t> records_;
  uint64_t packets_ = 0;
  uint64_t over_cap_ = 0;
  uint64_t skipped_ = 0;
};

// A pcap file's 24-byte header: nanosecond timestamps (magic 0xa1b23c4d),
// little-endian, as libpcap writes it on x86.
[[nodiscard]] std::string pcap_file_header(uint32_t snaplen, uint32_t link_type);

}  // namespace rdmasim
