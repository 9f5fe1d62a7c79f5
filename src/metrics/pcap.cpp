#include "metrics/pcap.h"

#include <algorithm>

#include "fabric/fabric.h"

namespace rdmasim {
namespace {

void put_le32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
}
void put_le32(std::vector<uint8_t>& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

CaptureLink capture_link(const FabricConfig& cfg) {
  if (cfg.ib.enabled) return CaptureLink::kInfiniband;
  return cfg.transport == "iwarp" ? CaptureLink::kIwarp : CaptureLink::kRocev2;
}

IwarpFraming iwarp_framing(const FabricConfig& cfg) {
  IwarpFraming f;
  f.ip_mtu = cfg.tcp.ip_mtu;
  f.timestamps = cfg.tcp.timestamps;
  f.markers = cfg.tcp.markers;
  return f;
}

}  // namespace

std::string pcap_file_header(uint32_t snaplen, uint32_t link_type) {
  std::string h;
  put_le32(h, 0xa1b23c4d);  // nanosecond timestamps
  h.push_back(2);           // version 2.4
  h.push_back(0);
  h.push_back(4);
  h.push_back(0);
  put_le32(h, 0);  // thiszone
  put_le32(h, 0);  // sigfigs
  put_le32(h, snaplen);
  put_le32(h, link_type);
  return h;
}

PcapCapture::PcapCapture(Fabric& fabric, const PcapSpec& spec, Time run_end)
    : fabric_(fabric),
      start_(spec.start),
      end_(spec.end == Time::zero() ? run_end : spec.end),
      max_packets_(static_cast<uint64_t>(spec.max_packets)),
      snaplen_(static_cast<uint32_t>(spec.snaplen)),
      frames_(capture_link(fabric.config()), iwarp_framing(fabric.config())) {
  const Topology& t = fabric.topology();
  std::vector<int> subnet(t.hosts.size());
  for (size_t h = 0; h < t.hosts.size(); ++h) subnet[h] = t.nodes[t.hosts[h]].subnet;
  frames_.set_host_subnets(std::move(subnet));
  if (spec.ports.empty()) {
    for (size_t n = 0; n < t.nodes.size(); ++n) {
      Node& node = fabric.node_by_topo_id(static_cast<int>(n));
      for (size_t i = 0; i < node.num_ports(); ++i) ports_.push_back(&node.port(i));
    }
  } else {
    for (const auto& [name, port] : spec.ports)
      for (size_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].name == name)
          ports_.push_back(&fabric.node_by_topo_id(static_cast<int>(n)).port(port));
  }
  std::sort(ports_.begin(), ports_.end());
  ports_.erase(std::unique(ports_.begin(), ports_.end()), ports_.end());
  for (Port* p : ports_) p->set_tap(this);
  // Enough for the first records without growing mid-run; a large capture
  // grows geometrically after that.
  const uint64_t first = std::min<uint64_t>(max_packets_, 4096);
  records_.reserve(static_cast<size_t>(first * (16 + std::min<uint32_t>(snaplen_, 1100))));
}

PcapCapture::~PcapCapture() {
  for (Port* p : ports_) p->set_tap(nullptr);
}

// An InfiniBand FCP: counted, never recorded (see metrics/pcap_frames.h).
void PcapCapture::on_link_frame(const Port& /*port*/, Time first_bit) {
  if (first_bit < start_ || first_bit >= end_) return;
  if (packets_ >= max_packets_)
    ++over_cap_;
  else
    ++skipped_;
}

void PcapCapture::on_transmit(const Port& port, const Packet& p, Time first_bit) {
  if (first_bit < start_ || first_bit >= end_) return;
  if (packets_ >= max_packets_) {
    ++over_cap_;
    return;
  }
  FrameEnds e;
  e.tx_node = static_cast<uint32_t>(port.owner().id());
  e.tx_port = port.index();
  e.rx_node = port.peer() != nullptr ? static_cast<uint32_t>(port.peer()->id()) : 0;
  e.rx_port = port.peer_index();
  e.first_bit = first_bit;
  if (p.type == PktType::kSharp) {
    // Aggregation ends at every hop (each switch reduces): the link's two ends
    // are the frame's, named by topology id.
    e.src_host = static_cast<int>(e.tx_node);
    e.dst_host = static_cast<int>(e.rx_node);
  } else if (p.type != PktType::kPfc) {
    const QpPath path = fabric_.verbs().qp(p.conn).path();
    e.dst_host = p.dst;
    e.src_host = p.dst == path.dst ? path.src : path.dst;
  }
  const std::vector<uint8_t>& f = frames_.build(p, e);
  if (f.empty()) {
    ++skipped_;
    return;
  }
  ++packets_;
  const int64_t ns = first_bit.ps() / 1000;
  const auto caplen = static_cast<uint32_t>(std::min<size_t>(f.size(), snaplen_));
  put_le32(records_, static_cast<uint32_t>(ns / 1000000000));
  put_le32(records_, static_cast<uint32_t>(ns % 1000000000));
  put_le32(records_, caplen);
  put_le32(records_, static_cast<uint32_t>(f.size()));
  records_.insert(records_.end(), f.begin(), f.begin() + caplen);
}

std::string PcapCapture::file() const {
  std::string s = pcap_file_header(snaplen_, frames_.link_type());
  s.append(reinterpret_cast<const char*>(records_.data()), records_.size());
  return s;
}

}  // namespace rdmasim
