// output.pcap: the captures are decoded by Debian's tshark and every field
// it reads is compared with the packet the simulator sent. tshark is a test
// dependency (tools/install-deps.sh): without it these tests fail, they do
// not skip.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "config/error.h"
#include "config/scenario.h"
#include "engine/simulation.h"
#include "fabric/fabric.h"
#include "fabric/profiles.h"
#include "metrics/pcap.h"
#include "report/results.h"
#include "run/experiment.h"
#include "sharp/sharp.h"
#include "sharp/sharp_data_path.h"
#include "support/recorder.h"
#include "topo/topology.h"

namespace rdmasim {
namespace {

namespace fs = std::filesystem;

std::string shell(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[65536];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

bool tshark_present() { return shell("tshark -v 2>/dev/null").find("TShark") != std::string::npos; }
constexpr const char* kNoTshark =
    "tshark is not installed: run tools/install-deps.sh (it installs Debian's tshark)";

std::string temp_path(const std::string& tag) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return (fs::temp_directory_path() /
          ("rdmasim_pcap_" + tag + "_" + info->name() + "_" + std::to_string(::getpid()) + ".pcap"))
      .string();
}

void write_binary(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// One row per frame: the values of `fields` (first occurrence), tab-separated.
std::vector<std::vector<std::string>> tshark_fields(const std::string& file,
                                                    const std::vector<std::string>& fields,
                                                    const std::string& options = "") {
  std::string cmd = "tshark -n " + options + " -r '" + file + "' -T fields -E occurrence=f -E separator=/t";
  for (const auto& f : fields) cmd += " -e " + f;
  cmd += " 2>/dev/null";
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(shell(cmd));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, '\t')) row.push_back(cell);
    row.resize(fields.size());
    rows.push_back(row);
  }
  return rows;
}

// Frames tshark finds malformed or flags with an error-level expert note
// (a bad checksum, a header that does not fit): must be none.
std::string tshark_errors(const std::string& file, const std::string& options = "") {
  return shell("tshark -n -o ip.check_checksum:TRUE " + options + " -r '" + file +
               "' -Y '_ws.malformed || _ws.expert.severity == error' -T fields -e frame.number "
               "-e _ws.expert.message 2>/dev/null");
}

uint64_t num(const std::string& s) {
  if (s.empty()) return ~0ull;
  return std::stoull(s, nullptr, 0);
}

// What the simulator sent, as the capture saw it.
struct Sent {
  PktType type;
  uint8_t flags, tc, sl;
  uint64_t psn;
  uint32_t conn, aux;
  int dst;
  Opcode op;
  uint16_t payload;
  int src_host;
  uint16_t wire;
};

// Passes every frame to the capture and keeps what the capture recorded.
class Tee final : public PortTap {
 public:
  Tee(Fabric& f, PcapCapture& c) : f_(f), c_(c) {
    for (Port* p : c.ports()) p->set_tap(this);
  }
  void on_transmit(const Port& port, const Packet& p, Time first_bit) override {
    const uint64_t before = c_.packets();
    c_.on_transmit(port, p, first_bit);
    if (c_.packets() == before) return;
    int src = -1;
    if (p.type == PktType::kSharp) {
      // A SHARP frame is between the link's two ends (topology ids).
      sent.push_back(Sent{p.type, p.flags, p.tc, p.sl, p.psn, p.conn, p.aux, port.peer()->id(), p.opcode,
                          p.payload, port.owner().id(), p.wire});
      return;
    }
    if (p.type != PktType::kPfc) {
      const QpPath path = f_.verbs().qp(p.conn).path();
      src = p.dst == path.dst ? path.src : path.dst;
    }
    sent.push_back(
        Sent{p.type, p.flags, p.tc, p.sl, p.psn, p.conn, p.aux, p.dst, p.opcode, p.payload, src, p.wire});
  }
  void on_link_frame(const Port& port, Time first_bit) override { c_.on_link_frame(port, first_bit); }
  std::vector<Sent> sent;

 private:
  Fabric& f_;
  PcapCapture& c_;
};

// The BTH opcode IBTA Vol.1 Table 38 gives each packet (RC), and 0x81 for a CNP.
uint64_t expected_opcode(const Sent& s) {
  const bool f = (s.flags & kFirst) != 0, l = (s.flags & kLast) != 0;
  switch (s.type) {
    case PktType::kReadRequest:
      return 0x0c;
    case PktType::kAck:
    case PktType::kNak:
      return 0x11;
    case PktType::kCnp:
      return 0x81;
    default:
      break;
  }
  if ((s.flags & kReadResponse) != 0) return f && l ? 0x10 : f ? 0x0d : l ? 0x0f : 0x0e;
  if (s.op == Opcode::kSend) return f && l ? 0x04 : f ? 0x00 : l ? 0x02 : 0x01;
  return f && l ? 0x0a : f ? 0x06 : l ? 0x08 : 0x07;
}

// Packets every port sent, and of them the InfiniBand flow-control packets.
std::pair<uint64_t, uint64_t> packets_sent(const Fabric& f) {
  uint64_t tx = 0, fcp = 0;
  for (size_t n = 0; n < f.topology().nodes.size(); ++n) {
    const Node& node = f.node_by_topo_id(static_cast<int>(n));
    for (size_t i = 0; i < node.num_ports(); ++i) {
      tx += node.port(i).counters().tx_packets;
      fcp += node.port(i).credit() != nullptr ? node.port(i).credit()->ctr.fcp_sent : 0;
    }
  }
  return {tx, fcp};
}

PcapSpec everything() {
  PcapSpec s;
  s.enabled = true;
  s.max_packets = 10000000;
  return s;
}

TEST(Pcap, RoceDcqcnIncastDecodesWithBthEcnCnpAndPfc) {
  ASSERT_TRUE(tshark_present()) << kNoTshark;
  Simulation sim(5);
  FabricConfig cfg = find_profile("rocev2-dcqcn").config;
  cfg.sw.mmu.buffer_bytes = 1 << 20;  // shallow enough that the incast pauses its senders
  Fabric f(sim, make_star(10, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  PcapCapture cap(f, everything(), Time::from_ms(50));
  Tee tee(f, cap);
  testing::Recorder rec;
  for (int s = 1; s <= 8; ++s)
    f.verbs().create_qp(s, 0, &rec).post_write(512 << 10, static_cast<uint64_t>(s));
  f.verbs().create_qp(9, 0, &rec).post_read(64 << 10, 9);  // READ request and responses
  f.verbs().create_qp(0, 9, &rec).post_send(8 << 10, 10);  // SEND First..Last
  sim.run(Time::from_ms(50));
  ASSERT_EQ(rec.done.size(), 10u);

  const std::string file = temp_path("roce");
  write_binary(file, cap.file());
  const auto rows = tshark_fields(
      file, {"eth.type", "ip.dsfield.ecn", "ip.dsfield.dscp", "udp.dstport", "infiniband.bth.opcode",
             "infiniband.bth.psn", "infiniband.bth.destqp", "macc.opcode", "macc.cbfc.enbv",
             "macc.cbfc.pause_time.c0", "macc.cbfc.pause_time.c1", "macc.cbfc.pause_time.c2",
             "macc.cbfc.pause_time.c3", "macc.cbfc.pause_time.c4", "macc.cbfc.pause_time.c5",
             "macc.cbfc.pause_time.c6", "macc.cbfc.pause_time.c7", "ip.src", "ip.dst"});
  ASSERT_EQ(rows.size(), tee.sent.size());
  ASSERT_EQ(rows.size(), cap.packets());
  uint64_t pfc = 0, xon = 0, cnp = 0, ce = 0, ect = 0, reads = 0, sends = 0;
  std::map<uint64_t, uint64_t> opcodes;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Sent& s = tee.sent[i];
    SCOPED_TRACE("frame " + std::to_string(i + 1));
    if (s.type == PktType::kPfc) {
      ++pfc;
      xon += s.psn == 0 ? 1 : 0;
      EXPECT_EQ(num(r[0]), 0x8808u);
      EXPECT_EQ(num(r[7]), 0x0101u);
      EXPECT_EQ(num(r[8]), 1u << s.tc);
      for (int prio = 0; prio < 8; ++prio) EXPECT_EQ(num(r[9 + prio]), prio == s.tc ? s.psn : 0u) << prio;
      continue;
    }
    EXPECT_EQ(num(r[0]), 0x0800u);
    EXPECT_EQ(num(r[3]), 4791u);
    const uint64_t ecn = (s.flags & kCe) != 0 ? 3 : (s.flags & kEct) != 0 ? 2 : 0;
    EXPECT_EQ(num(r[1]), ecn);
    EXPECT_EQ(num(r[2]), 8u * s.tc);
    ce += ecn == 3 ? 1 : 0;
    ect += ecn == 2 ? 1 : 0;
    EXPECT_EQ(num(r[4]), expected_opcode(s));
    ++opcodes[num(r[4])];
    EXPECT_EQ(num(r[5]), s.type == PktType::kCnp ? 0 : s.psn & 0xffffff);
    EXPECT_EQ(num(r[6]), FrameBuilder::qpn(s.conn));
    EXPECT_EQ(r[17], "10.0.0." + std::to_string(s.src_host + 1));
    EXPECT_EQ(r[18], "10.0.0." + std::to_string(s.dst + 1));
    cnp += s.type == PktType::kCnp ? 1 : 0;
    reads += s.type == PktType::kReadRequest ? 1 : 0;
    sends += s.type == PktType::kData && s.op == Opcode::kSend ? 1 : 0;
  }
  // The capture saw what the counters count: every PAUSE frame the ports
  // sent, every CNP (on both links of the star), every CE mark.
  uint64_t pfc_counted = 0, marked = 0, tx = 0;
  for (size_t n = 0; n < f.topology().nodes.size(); ++n) {
    const Node& node = f.node_by_topo_id(static_cast<int>(n));
    for (size_t i = 0; i < node.num_ports(); ++i) {
      tx += node.port(i).counters().tx_packets;
      for (int tc = 0; tc < 8; ++tc) {
        pfc_counted += node.port(i).counters().pfc_tx_frames[tc];
        marked += node.port(i).counters().ecn_marked_packets[tc];
      }
    }
  }
  EXPECT_EQ(rows.size(), tx);
  EXPECT_GT(pfc, 0u);
  EXPECT_GT(xon, 0u) << "XON: PAUSE with zero quanta";
  EXPECT_EQ(pfc, pfc_counted);
  const QpStats qs = f.verbs().total_stats();
  EXPECT_GT(cnp, 0u);
  EXPECT_EQ(cnp, 2 * qs.cnps_sent);
  EXPECT_GT(ce, 0u);
  EXPECT_EQ(ce, marked);
  EXPECT_GT(ect, 0u);
  EXPECT_EQ(reads, 2u) << "one READ request, on two links";
  EXPECT_GT(sends, 0u);
  for (uint64_t op : {0x00, 0x01, 0x02, 0x06, 0x07, 0x08, 0x0c, 0x0d, 0x0e, 0x0f, 0x11, 0x81})
    EXPECT_GT(opcodes[op], 0u) << "opcode " << op;
  EXPECT_EQ(tshark_errors(file), "");
  // The verbose decode names what an operator looks for.
  const std::string v = shell("tshark -n -V -c 20 -r '" + file + "' 2>/dev/null");
  EXPECT_NE(v.find("Dst Port: 4791"), std::string::npos);
  EXPECT_NE(v.find("Base Transport Header"), std::string::npos);
  EXPECT_NE(v.find("RDMA WRITE First"), std::string::npos);
  const std::string pause = shell("tshark -n -V -Y macc -r '" + file + "' 2>/dev/null | head -60");
  EXPECT_NE(pause.find("MAC Control"), std::string::npos) << pause;
  fs::remove(file);
}

TEST(Pcap, InfinibandIncastDecodesLrhAndBth) {
  ASSERT_TRUE(tshark_present()) << kNoTshark;
  Simulation sim(5);
  const FabricConfig cfg = find_profile("ib-ndr").config;
  Fabric f(sim, make_star(6, LinkSpec{Rate::from_gbps(400), Time::from_ns(25)}), cfg);
  PcapCapture cap(f, everything(), Time::from_ms(10));
  Tee tee(f, cap);
  testing::Recorder rec;
  for (int s = 1; s <= 4; ++s)
    f.verbs().create_qp(s, 0, &rec).post_write(256 << 10, static_cast<uint64_t>(s));
  f.verbs().create_qp(5, 0, &rec).post_read(32 << 10, 5);
  sim.run(Time::from_ms(10));
  ASSERT_EQ(rec.done.size(), 5u);
  EXPECT_EQ(cap.link_type(), FrameBuilder::kLinkTypeErf);

  const std::string file = temp_path("ib");
  write_binary(file, cap.file());
  const auto rows = tshark_fields(
      file, {"infiniband.lrh.vl", "infiniband.lrh.sl", "infiniband.lrh.lnh", "infiniband.lrh.dlid",
             "infiniband.lrh.slid", "infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.bth.destqp",
             "infiniband.lrh.pktlen", "erf.wlen", "erf.types.type"});
  ASSERT_EQ(rows.size(), tee.sent.size());
  ASSERT_GT(rows.size(), 0u);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Sent& s = tee.sent[i];
    SCOPED_TRACE("frame " + std::to_string(i + 1));
    EXPECT_EQ(num(r[10]), 21u) << "ERF INFINIBAND";
    EXPECT_EQ(num(r[0]), s.tc);
    EXPECT_EQ(num(r[1]), s.sl);
    EXPECT_EQ(num(r[2]), 2u);
    EXPECT_EQ(num(r[3]), static_cast<uint64_t>(s.dst + 1));
    EXPECT_EQ(num(r[4]), static_cast<uint64_t>(s.src_host + 1));
    EXPECT_EQ(num(r[5]), expected_opcode(s));
    EXPECT_EQ(num(r[6]), s.psn & 0xffffff);
    EXPECT_EQ(num(r[7]), FrameBuilder::qpn(s.conn));
    EXPECT_EQ(num(r[8]) * 4 + 2, num(r[9])) << "PktLen counts LRH to ICRC; the VCRC follows";
  }
  // Every data packet is in the file; credit packets are counted instead.
  const auto [tx, fcp] = packets_sent(f);
  EXPECT_GT(fcp, 0u);
  EXPECT_EQ(cap.link_packets_skipped(), fcp);
  EXPECT_EQ(rows.size() + fcp, tx);
  EXPECT_EQ(tshark_errors(file), "");
  const std::string v = shell("tshark -n -V -c 50 -r '" + file + "' 2>/dev/null");
  EXPECT_NE(v.find("Local Route Header"), std::string::npos);
  EXPECT_NE(v.find("Base Transport Header"), std::string::npos);
  EXPECT_NE(v.find("RDMA WRITE First"), std::string::npos);
  fs::remove(file);
}

// Between InfiniBand subnets (two sites joined by routers) every packet
// carries a Global Route Header (IBTA Vol.1 §8.3), 40 B the simulator
// counts on the wire: tshark reads LNH = 3 (IBA global), a GRH whose next
// header is the BTH and whose payload length runs to the ICRC, and the two
// subnets' GIDs; within a subnet, LNH = 2 and no GRH. Every frame is as
// long as the packet the simulator sent.
TEST(Pcap, InfinibandBetweenSubnetsCarriesAGrh) {
  ASSERT_TRUE(tshark_present()) << kNoTshark;
  Simulation sim(5);
  const FabricConfig cfg = find_profile("ib-ndr").config;
  const LinkSpec l{Rate::from_gbps(400), Time::from_ns(25)};
  Fabric f(sim, make_two_site(1, 2, 1, 1, l, l, l, 1), cfg);  // hosts 0, 1 in subnet 0; 2, 3 in subnet 1
  PcapCapture cap(f, everything(), Time::from_ms(1));
  Tee tee(f, cap);
  testing::Recorder rec;
  f.verbs().create_qp(0, 1, &rec).post_write(8 << 10, 1);
  f.verbs().create_qp(0, 3, &rec).post_write(8 << 10, 2);
  f.verbs().create_qp(2, 1, &rec).post_read(4 << 10, 3);
  sim.run(Time::from_ms(1));
  ASSERT_EQ(rec.done.size(), 3u);

  const std::string file = temp_path("grh");
  write_binary(file, cap.file());
  const auto rows = tshark_fields(
      file, {"infiniband.lrh.lnh", "infiniband.grh.nxthdr", "infiniband.grh.paylen", "infiniband.grh.sgid",
             "infiniband.grh.dgid", "infiniband.lrh.pktlen", "erf.wlen", "infiniband.bth.destqp"});
  ASSERT_EQ(rows.size(), tee.sent.size());
  int global = 0, local = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Sent& s = tee.sent[i];
    SCOPED_TRACE("frame " + std::to_string(i + 1));
    EXPECT_EQ(num(r[6]), s.wire) << "the frame is as long as the simulator's packet";
    EXPECT_EQ(num(r[5]) * 4 + 2, num(r[6])) << "PktLen counts LRH to ICRC; the VCRC follows";
    EXPECT_EQ(num(r[7]), FrameBuilder::qpn(s.conn));
    if ((s.src_host < 2) != (s.dst < 2)) {
      ++global;
      EXPECT_EQ(num(r[0]), 3u);
      EXPECT_EQ(num(r[1]), 0x1bu);
      EXPECT_EQ(num(r[2]), num(r[6]) - 8 - 40 - 2) << "GRH PayLen: BTH through ICRC";
      const auto gid = [](int host) {
        return std::string(host < 2 ? "fec0::" : "fec0:0:0:1::") + std::to_string(host + 1);
      };
      EXPECT_EQ(r[3], gid(s.src_host));
      EXPECT_EQ(r[4], gid(s.dst));
    } else {
      ++local;
      EXPECT_EQ(num(r[0]), 2u);
      EXPECT_EQ(r[1], "");
    }
  }
  EXPECT_GT(global, 0);
  EXPECT_GT(local, 0);
  EXPECT_EQ(tshark_errors(file), "");
  fs::remove(file);
}

// Records when a SHARP operation completes.
struct OpDone final : EventHandler {
  bool done = false;
  void on_event(uint32_t /*kind*/, uint64_t /*arg*/) override { done = true; }
};

// SHARP's aggregation packets on InfiniBand: RC WRITE Only frames between
// each link's two ends, each as long as the simulator counted it, beside the
// RC traffic; tshark decodes them without error, and every packet a port sent
// is a frame or a skipped credit packet.
TEST(Pcap, SharpAggregationFramesDecodeOnInfiniband) {
  ASSERT_TRUE(tshark_present()) << kNoTshark;
  Simulation sim(3);
  FabricConfig cfg = find_profile("ib-ndr").config;
  ASSERT_TRUE(cfg.sharp.enabled);
  Fabric f(sim, make_star(4, LinkSpec{Rate::from_gbps(400), Time::from_ns(25)}), cfg);
  PcapCapture cap(f, everything(), Time::from_ms(10));
  Tee tee(f, cap);
  SharpManager groups(f.topology(), f.config().sharp);
  const std::vector<int> hosts = {0, 1, 2, 3};
  const std::optional<SharpGroup> g = groups.allocate(hosts);
  ASSERT_TRUE(g.has_value());
  OpDone done;
  f.sharp()->start(*g, hosts, 64 << 10, &done, 0, 0);
  testing::Recorder rec;
  f.verbs().create_qp(1, 0, &rec).post_write(32 << 10, 1);
  sim.run(Time::from_ms(10));
  ASSERT_TRUE(done.done);
  ASSERT_EQ(rec.done.size(), 1u);

  const std::string file = temp_path("sharp");
  write_binary(file, cap.file());
  const auto rows = tshark_fields(
      file, {"infiniband.lrh.dlid", "infiniband.lrh.slid", "infiniband.bth.opcode", "infiniband.bth.destqp",
             "infiniband.bth.psn", "infiniband.lrh.pktlen", "erf.wlen", "infiniband.reth.dmalen"});
  ASSERT_EQ(rows.size(), tee.sent.size());
  size_t sharp = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Sent& s = tee.sent[i];
    SCOPED_TRACE("frame " + std::to_string(i + 1));
    EXPECT_EQ(num(r[5]) * 4 + 2, num(r[6])) << "PktLen counts LRH to ICRC; the VCRC follows";
    if (s.type != PktType::kSharp) continue;
    ++sharp;
    EXPECT_EQ(num(r[0]), static_cast<uint64_t>(s.dst + 1));
    EXPECT_EQ(num(r[1]), static_cast<uint64_t>(s.src_host + 1));
    EXPECT_EQ(num(r[2]), 0x0au) << "RDMA WRITE Only";
    EXPECT_EQ(num(r[3]), FrameBuilder::kSharpQpn | s.conn);
    EXPECT_EQ(num(r[4]), s.psn);
    EXPECT_EQ(num(r[7]), s.payload);
    // As long on the wire as the simulator counted it: LRH 8 + BTH 12 + RETH 16 + payload + ICRC 4 + VCRC 2.
    EXPECT_EQ(num(r[6]), 8u + 12 + 16 + s.payload + (4 - s.payload % 4) % 4 + 4 + 2);
  }
  // 64 KiB in 4 KiB packets: 16 up from each of 4 hosts, 16 results down to each.
  EXPECT_EQ(sharp, 2u * 4 * 16);
  const auto [tx, fcp] = packets_sent(f);
  EXPECT_EQ(rows.size() + fcp, tx);
  EXPECT_EQ(tshark_errors(file), "");
  fs::remove(file);
}

TEST(Pcap, IwarpDctcpDecodesTcpSequenceAckEcnAndMpa) {
  ASSERT_TRUE(tshark_present()) << kNoTshark;
  Simulation sim(5);
  FabricConfig cfg = find_profile("iwarp-dctcp").config;
  cfg.tcp.handshake = true;  // SYN, SYN-ACK and the MPA Request/Reply: what lets tshark follow MPA
  Fabric f(sim, make_star(6, LinkSpec{Rate::from_gbps(100), Time::from_ns(1000)}), cfg);
  // Both directions of the receiver's link, once each: a frame seen again at
  // the next hop would look to Wireshark like a retransmission (and a second
  // MPA Reply like an FPDU).
  PcapSpec spec = everything();
  spec.ports = {{"sw0", 0}, {"h0", 0}};
  PcapCapture cap(f, spec, Time::from_ms(50));
  Tee tee(f, cap);
  testing::Recorder rec;
  for (int s = 1; s <= 4; ++s) f.verbs().create_qp(s, 0, &rec).post_write(2 << 20, static_cast<uint64_t>(s));
  f.verbs().create_qp(5, 0, &rec).post_read(64 << 10, 5);
  sim.run(Time::from_ms(50));
  ASSERT_EQ(rec.done.size(), 5u);

  const std::string file = temp_path("iwarp");
  write_binary(file, cap.file());
  const std::string no_analysis = "-o tcp.analyze_sequence_numbers:FALSE";
  const auto rows =
      tshark_fields(file,
                    {"ip.proto", "ip.dsfield.ecn", "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "tcp.flags.syn",
                     "tcp.flags.ack", "tcp.flags.ece", "iwarp_mpa.ulpdulength", "iwarp_rdma.opcode",
                     "iwarp_ddp.tagged_flag", "iwarp_mpa.key.req", "iwarp_mpa.key.rep"},
                    no_analysis);
  ASSERT_EQ(rows.size(), tee.sent.size());
  const IwarpFraming fr{cfg.tcp.ip_mtu, cfg.tcp.timestamps, cfg.tcp.markers};
  const FrameBuilder fb(CaptureLink::kIwarp, fr);
  uint64_t syn = 0, mpa_req = 0, mpa_rep = 0, data = 0, ce = 0, ece = 0, decoded = 0;
  std::map<uint64_t, uint64_t> rdmap;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const Sent& s = tee.sent[i];
    SCOPED_TRACE("frame " + std::to_string(i + 1));
    ASSERT_EQ(num(r[0]), 6u);
    if (s.type == PktType::kAck && (s.flags & kFirst) != 0) {
      syn += num(r[5]) == 1 ? 1 : 0;
      mpa_req += r[11].empty() ? 0 : 1;
      mpa_rep += r[12].empty() ? 0 : 1;
      EXPECT_EQ(num(r[5]), s.aux <= 2 ? 1u : 0u);
      continue;
    }
    if (s.type == PktType::kAck) {
      const bool resp_stream = (s.flags & kReadResponse) != 0;
      EXPECT_EQ(num(r[3]), fb.tcp_seq(!resp_stream, s.psn)) << "cumulative ACK of segment " << s.psn;
      EXPECT_EQ(num(r[4]), 0u);
      EXPECT_EQ(num(r[7]), (s.flags & kCe) != 0 ? 1u : 0u);
      ece += (s.flags & kCe) != 0 ? 1 : 0;
      continue;
    }
    ++data;
    const bool response = (s.flags & kReadResponse) != 0;
    const bool request = s.op == Opcode::kRead && !response;
    EXPECT_EQ(num(r[2]), fb.tcp_seq(!response, s.psn));
    const uint32_t ulpdu = request ? IwarpFraming::kDdpUntagged + IwarpFraming::kReadRequestBody
                                   : IwarpFraming::ddp_header(s.op != Opcode::kSend) + s.payload;
    const uint32_t expect_len = IwarpFraming::fpdu(ulpdu);
    EXPECT_EQ(num(r[4]), expect_len);
    const uint64_t ecn = (s.flags & kCe) != 0 ? 3 : (s.flags & kEct) != 0 ? 2 : 0;
    EXPECT_EQ(num(r[1]), ecn);
    ce += ecn == 3 ? 1 : 0;
    if (!r[8].empty()) {
      ++decoded;
      EXPECT_EQ(num(r[8]), ulpdu) << "MPA ULPDU length";
      ++rdmap[num(r[9])];
    }
  }
  EXPECT_EQ(syn, 2 * 5u) << "SYN and SYN-ACK of 5 connections";
  EXPECT_EQ(mpa_req, 5u);
  EXPECT_EQ(mpa_rep, 5u);
  EXPECT_GT(data, 0u);
  EXPECT_GT(ce, 0u);
  EXPECT_GT(ece, 0u);
  EXPECT_EQ(decoded, data) << "tshark's iwarp_mpa follows every FPDU";
  EXPECT_GT(rdmap[0], 0u) << "RDMA Write";
  EXPECT_GT(rdmap[1], 0u) << "Read Request";
  EXPECT_GT(rdmap[2], 0u) << "Read Response";
  EXPECT_EQ(tshark_errors(file, no_analysis), "");
  fs::remove(file);
}

constexpr const char* kFilterScenario = R"(
name: pcap-filter
seed: 3
duration: 5ms
topology: {type: star, hosts: 5, link: {rate: 100Gbps, delay: 1us}}
fabric: {profile: rocev2-dcqcn}
workload: [{type: incast, senders: 4, receiver: 0, size: 256KiB, placement: sequential}]
)";

Scenario with_pcap(const std::string& pcap_block) {
  return load_scenario_text(std::string(kFilterScenario) +
                                "output: {flows_csv: false, ports_csv: false, pcap: " + pcap_block + "}\n",
                            "pcap.yaml");
}

// Frame timestamps in ns, as tshark reads them.
std::vector<int64_t> frame_times(const std::string& file) {
  std::vector<int64_t> t;
  for (const auto& r : tshark_fields(file, {"frame.time_epoch"})) {
    const std::string& s = r[0];
    const auto dot = s.find('.');
    t.push_back(std::stoll(s.substr(0, dot)) * 1000000000 +
                std::stoll((s.substr(dot + 1) + "000000000").substr(0, 9)));
  }
  return t;
}

TEST(Pcap, FiltersByPortWindowAndCount) {
  ASSERT_TRUE(tshark_present()) << kNoTshark;
  const fs::path dir = fs::temp_directory_path() / ("rdmasim_pcap_filters_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto run = [&](const std::string& block, const std::string& name) {
    Experiment e(with_pcap(block));
    e.run();
    EXPECT_TRUE(e.all_done());
    const fs::path d = dir / name;
    fs::create_directories(d);
    const auto files = write_outputs(e, d.string());
    EXPECT_NE(std::find(files.begin(), files.end(), "capture.pcap"), files.end());
    const auto j = results_json(e);
    return std::make_pair((d / "capture.pcap").string(), j["pcap"]);
  };
  const auto [all_file, all] = run("{}", "all");
  const std::vector<int64_t> all_t = frame_times(all_file);
  ASSERT_EQ(all_t.size(), all["packets"].get<uint64_t>());
  ASSERT_GT(all_t.size(), 1000u);
  EXPECT_EQ(all["packets_over_cap"].get<uint64_t>(), 0u);

  // One port: h1's uplink carries h1's data and nothing else it sends.
  {
    Experiment e(with_pcap("{ports: h1:0}"));
    e.run();
    const PcapCapture* c = e.capture();
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->ports().size(), 1u);
    const Port& h1 = e.fabric().node_by_topo_id(1).port(0);
    EXPECT_EQ(c->packets(), h1.counters().tx_packets);
    const std::string f = (dir / "h1.pcap").string();
    write_binary(f, c->file());
    for (const auto& r : tshark_fields(f, {"ip.src"})) EXPECT_EQ(r[0], "10.0.0.2");
  }
  // Two ports as a list: the switch port towards h0 and h2's uplink.
  {
    Experiment e(with_pcap("{ports: [sw0:0, h2:0]}"));
    e.run();
    const Fabric& fab = e.fabric();
    const int sw = 5;  // star: hosts h0..h4, then sw0
    EXPECT_EQ(e.capture()->packets(), fab.node_by_topo_id(sw).port(0).counters().tx_packets +
                                          fab.node_by_topo_id(2).port(0).counters().tx_packets);
  }
  // A window: exactly the frames of the full capture whose first bit is in it.
  {
    const int64_t from = 20000, to = 60000;  // ns
    const auto [f, j] = run("{start: 20us, end: 60us}", "window");
    const std::vector<int64_t> t = frame_times(f);
    size_t expect = 0;
    for (int64_t x : all_t) expect += x >= from && x < to ? 1 : 0;
    EXPECT_GT(expect, 0u);
    EXPECT_EQ(t.size(), expect);
    for (int64_t x : t) {
      EXPECT_GE(x, from);
      EXPECT_LT(x, to);
    }
  }
  // A count: the first N frames, the rest counted as over the cap.
  {
    const auto [f, j] = run("{max_packets: 100, snaplen: 64}", "count");
    const std::vector<int64_t> t = frame_times(f);
    ASSERT_EQ(t.size(), 100u);
    for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i], all_t[i]);
    EXPECT_EQ(j["packets_over_cap"].get<uint64_t>(), all_t.size() - 100);
    // Truncated to the snaplen, the records keep the frames' real lengths.
    const auto lens = tshark_fields(f, {"frame.len", "frame.cap_len"});
    const auto full = tshark_fields(all_file, {"frame.len"});
    for (size_t i = 0; i < lens.size(); ++i) {
      EXPECT_EQ(lens[i][0], full[i][0]);
      EXPECT_LE(num(lens[i][1]), 64u);
    }
  }
  fs::remove_all(dir);
}

TEST(Pcap, BadFiltersAreRefusedWithTheirKey) {
  auto refused = [](const std::string& block, const std::string& key, const std::string& says) {
    try {
      (void)with_pcap(block);
      ADD_FAILURE() << block << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
      EXPECT_GT(e.line(), 0) << e.what();
    }
  };
  refused("{ports: leaf0:2}", "ports", "no node named 'leaf0'");
  refused("{ports: [h1:0, h1:1]}", "ports", "expected a port of 'h1' below 1");
  refused("{ports: h1}", "ports", "expected 'all', 'node:port'");
  refused("{ports: []}", "ports", "expected 'all', 'node:port'");
  refused("{start: 6ms}", "start", "before the end of the run");
  refused("{end: 6ms}", "end", "at or before the end of the run");
  refused("{start: 3us, end: 2us}", "end", "expected an end after start");
  refused("{max_packets: 0}", "max_packets", "");
  refused("{snaplen: 10}", "snaplen", "");
  refused("{interval: 1us}", "interval", "");
  // Accepted forms.
  EXPECT_NO_THROW((void)with_pcap("{ports: all, start: 0us, end: end}"));
  EXPECT_NO_THROW((void)with_pcap("{ports: [h0:0, sw0:4], end: 5ms}"));
}

}  // namespace
}  // namespace rdmasim
