#include "evaluate/tco.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <stdexcept>
#include <utility>

namespace rdmasim {

namespace {

// One editable price or rate: its evaluation-file key, where it lives in
// CostInputs and what the loader accepts. The loader, the defaults and the
// JSON all walk this one table, so a key cannot be readable but unprinted.
struct InputField {
  std::string_view key;
  double CostInputs::*member;
  std::string_view unit;
  double min;
  double max;
};

constexpr double kMaxUsd = 1e9;

constexpr std::array<InputField, 12> input_fields() {
  return {{
      {"nic", &CostInputs::nic_usd, "USD", 0, kMaxUsd},
      {"switch_port", &CostInputs::switch_port_usd, "USD", 0, kMaxUsd},
      {"host_link", &CostInputs::host_link_usd, "USD", 0, kMaxUsd},
      {"fabric_link", &CostInputs::fabric_link_usd, "USD", 0, kMaxUsd},
      {"nic_w", &CostInputs::nic_w, "W", 0, 1e5},
      {"switch_port_w", &CostInputs::switch_port_w, "W", 0, 1e5},
      {"usd_per_kwh", &CostInputs::usd_per_kwh, "USD/kWh", 0, 10},
      {"pue", &CostInputs::pue, "ratio", 1, 5},
      {"licence_per_switch_year", &CostInputs::licence_usd_per_switch_year, "USD/switch/year", 0, kMaxUsd},
      {"staff_fte_per_100_switches", &CostInputs::staff_fte_per_100_switches, "FTE", 0, 1000},
      {"staff_salary", &CostInputs::staff_salary_usd, "USD/year", 0, kMaxUsd},
      {"staff_overhead", &CostInputs::staff_overhead, "ratio", 1, 10},
  }};
}

constexpr int kDefaultYears = 5;
constexpr int kMaxYears = 50;

constexpr std::array<CostFamily, 3> kPricedFamilies = {CostFamily::kInfiniband, CostFamily::kRoce,
                                                       CostFamily::kIwarp};

// ---- Sources. Shared wording first, then the per-family table. ----

// yobitel.com: "a 1,024-GPU NDR fat-tree uses 32 leaves + 16 spines of
// Quantum-2 (~48 switches, ~$0.55-0.75M switch BOM plus ~$1.2-1.6M of optics)".
// Per port: 0.55M..0.75M / (48 x 64) = 179..244, midpoint 212. Per link, with
// 1024 host links and 32 x 32 leaf-spine links: 1.2M..1.6M / 2048 = 586..781,
// midpoint 684.
constexpr std::string_view kYobitelNdr = "https://yobitel.com/knowledge-base/infiniband-ndr";

std::string ib_switch_port_source() {
  return fmt::format(
      "{}: 48 Quantum-2 64-port switches for a 1,024-GPU NDR fat-tree cost ~USD 0.55-0.75M; / (48 x 64 "
      "ports) = 179-244 USD per port, midpoint 212",
      kYobitelNdr);
}

std::string ib_link_source() {
  return fmt::format(
      "{}: ~USD 1.2-1.6M of optics for the same 1,024-GPU fat-tree; / 2048 links (1024 host + 32 x 32 "
      "leaf-spine) = 586-781 USD per link with both ends, midpoint 684",
      kYobitelNdr);
}

constexpr std::string_view kOpticsPowerNote =
    "9 W typical 400G OSFP transceiver (NVIDIA MMS4X00-NS400 spec, "
    "https://docs.nvidia.com/networking/display/mms4x00ns400/overview)";

constexpr std::string_view kSwitchOpticsNote =
    "8.5 W per port, half of a 17 W twin-port OSFP (QM97xx manual, "
    "https://docs.nvidia.com/networking/display/QM97X0PUB/Interfaces)";

std::vector<CostInputInfo> shared_info() {
  return {
      {"usd_per_kwh", 0.0895, "USD/kWh",
       "EIA Electric Power Annual 2023, average revenue per kWh, Virginia commercial sector 8.95 cents "
       "(Northern Virginia is the largest US data-center market), "
       "https://www.eia.gov/electricity/annual/secrev-map.php; range: North Dakota 7.38 to California 23.91 "
       "cents, commercial, same table",
       0.0738, 0.2391},
      {"pue", 1.58, "ratio",
       "Uptime Institute Global Data Center Survey 2023: industry average PUE 1.58, "
       "https://intelligence.uptimeinstitute.com/resource/"
       "large-data-centers-are-mostly-more-efficient-analysis-confirms; range is an assumption: 1.1 "
       "(hyperscale) to 1.8 (older sites)",
       1.1, 1.8},
      {"staff_salary", 129840, "USD/year",
       "US BLS Occupational Outlook Handbook, Computer Network Architects, 2023 median pay USD 129,840, "
       "https://www.bls.gov/ooh/computer-and-information-technology/home.htm; range is an assumption: "
       "100k-220k, the top allowing for a premium on specialised fabric skills",
       100000, 220000},
      {"staff_overhead", 1.4, "ratio",
       "assumption: loaded cost (benefits, payroll tax, training, tools) of 1.25-1.6x salary", 1.25, 1.6},
  };
}

std::vector<CostInputInfo> family_info(CostFamily family) {
  const std::string nic_w_source = fmt::format(
      "assumption: ~20 W for a 400G NIC card (no public typical figure found) + {}", kOpticsPowerNote);
  const std::string switch_w_source = fmt::format(
      "assumption: ~1.4 kW for a 51.2 Tb/s 64x400G-class switch without optics (~22 W/port; no public "
      "typical figure found) + {}",
      kSwitchOpticsNote);
  // A 51.2 Tb/s Ethernet switch run as 128x400G spreads its chassis power
  // over twice the ports, hence the lower bound.
  const std::string ethernet_switch_w_source =
      switch_w_source + "; run as 128x400G an Ethernet switch of the same capacity draws about half per port";
  const std::string licence_source =
      "assumption: yearly management software and support per switch (UFM for InfiniBand; NOS "
      "subscription and support for Ethernet); no public list price found, set equal across families so "
      "the default does not presume a difference";
  const std::string staff_source_tail =
      "no public staffing ratio found; equal across families so the default does not presume the claim "
      "under test, which the range lets the sensitivity analysis explore";

  switch (family) {
    case CostFamily::kInfiniband:
      return {
          {"nic", 2000, "USD",
           "assumption: ConnectX-7 400G single-port OSFP VPI adapter (MCX75310AAS-NEAT) street price; no "
           "public price found in the reference corpus",
           1500, 3000},
          {"switch_port", 212, "USD", ib_switch_port_source(), 179, 244},
          {"host_link", 684, "USD", ib_link_source(), 586, 781},
          {"fabric_link", 684, "USD", ib_link_source(), 586, 781},
          {"nic_w", 29, "W", nic_w_source, 20, 40},
          {"switch_port_w", 30.5, "W", switch_w_source, 20, 40},
          {"licence_per_switch_year", 2000, "USD/switch/year", licence_source, 500, 5000},
          {"staff_fte_per_100_switches", 2, "FTE",
           "assumption: subnet manager/UFM operation and InfiniBand-specific troubleshooting; " +
               staff_source_tail,
           0.5, 4},
      };
    case CostFamily::kRoce:
      return {
          {"nic", 2000, "USD",
           "assumption: ConnectX-7 400G Ethernet adapter, same silicon as the VPI card and priced alike; no "
           "public price found",
           1500, 3000},
          {"switch_port", 212, "USD",
           "assumption: 51.2 Tb/s Ethernet switch (Spectrum-4 SN5600 / Tomahawk 5 class) as 128x400G; no "
           "public price found, set equal to the InfiniBand per-port figure so the default does not presume "
           "a difference",
           90, 300},
          {"host_link", 684, "USD",
           "assumption: the same 400G OSFP modules serve Quantum-2 and Spectrum-4 switches (NVIDIA "
           "MMS4X00-NS400 spec), so the InfiniBand figure applies; third-party Ethernet optics may cost less",
           400, 781},
          {"fabric_link", 684, "USD",
           "assumption: as host_link; same 400G OSFP optics as InfiniBand, third-party optics may cost less",
           400, 781},
          {"nic_w", 29, "W", nic_w_source, 20, 40},
          {"switch_port_w", 30.5, "W", ethernet_switch_w_source, 15, 40},
          {"licence_per_switch_year", 2000, "USD/switch/year", licence_source, 500, 5000},
          {"staff_fte_per_100_switches", 2, "FTE",
           "assumption: PFC/ECN/DCQCN tuning and lossless-Ethernet troubleshooting; " + staff_source_tail,
           0.5, 4},
      };
    case CostFamily::kIwarp:
      return {
          {"nic", 2000, "USD",
           "assumption: Chelsio T7-class 400G iWARP RNIC; low-volume part, no public price found; set equal "
           "to the RoCE NIC, wider range",
           1500, 4000},
          {"switch_port", 212, "USD",
           "assumption: any Ethernet switch (no PFC/lossless features needed); no public price found, set "
           "equal to the other families",
           80, 300},
          {"host_link", 684, "USD", "assumption: same Ethernet optics as RoCE", 400, 781},
          {"fabric_link", 684, "USD", "assumption: same Ethernet optics as RoCE", 400, 781},
          {"nic_w", 29, "W",
           "assumption: as the RoCE NIC; full TCP offload may draw more, no public typical figure found for "
           "400G; " +
               std::string(kOpticsPowerNote),
           20, 45},
          {"switch_port_w", 30.5, "W", ethernet_switch_w_source, 15, 40},
          {"licence_per_switch_year", 2000, "USD/switch/year", licence_source, 500, 5000},
          {"staff_fte_per_100_switches", 2, "FTE",
           "assumption: ordinary Ethernet operation without PFC/ECN (TCP recovers loss), plus offload-driver "
           "specifics; " +
               staff_source_tail,
           0.5, 4},
      };
    case CostFamily::kIdeal:
      return {};
  }
  return {};
}

// One link of each cable or optic class with both ends, at 400 Gb/s. The
// in-hall optics carry the one published figure (yobitel's fat-tree optics
// bill, which at NDR is SR/DR-class OSFP modules); no list price for the
// other classes was found in a source this project could read, so they are
// assumptions with wide ranges, ordered as reach and technology order them.
struct CablePrice {
  std::string_view cable;
  double usd;
  double low;
  double high;
  std::string_view source;  // empty: the yobitel in-hall figure
};
constexpr CablePrice kCablePrices[] = {
    {"dac", 200, 100, 400,
     "assumption: one passive copper assembly, no optics; a third-party bill of materials lists FS.com's 1 m "
     "400G breakout DAC at USD 199 (unverified)"},
    {"acc", 350, 200, 600, "assumption: one linear active copper assembly, between a DAC and an AOC"},
    {"aoc", 550, 350, 900, "assumption: one active optical cable, its optics built in, below two modules"},
    {"sr8", 684, 586, 781, ""},
    {"sr4", 684, 586, 781, ""},
    {"dr4", 684, 586, 781, ""},
    {"fr4", 1000, 700, 2000, "assumption: two 2 km FR4 modules, about 1.5x the in-hall modules"},
    {"lr4", 1600, 1000, 3000, "assumption: two 6 km LR4 modules"},
    {"lr8", 3000, 1500, 5000, "assumption: two 10 km LR8 modules (eight lasers each)"},
    {"zr", 10000, 5000, 20000,
     "assumption: two 400ZR coherent modules at USD 2,500-10,000 each; the amplified DWDM line system "
     "(amplifiers, mux/demux) is not included"},
    {"zr-plus", 14000, 7000, 30000,
     "assumption: two OpenZR+ coherent modules, above 400ZR; the line system is not included"},
    {"metrox-3", 80000, 40000, 160000,
     "assumption: a NVIDIA MetroX-3 XC system at each end with its DWDM transceivers (no public price)"},
};

double CostInputs::*member_for(std::string_view key) {
  for (const InputField& f : input_fields()) {
    if (f.key == key) return f.member;
  }
  throw std::logic_error("tco: no input field named " + std::string(key));
}

std::string num(double v) { return fmt::format("{}", v); }

double energy_usd(double watts, const CostInputs& in) {
  const double kwh = watts * in.pue * kHoursPerYear * in.years / 1000;
  return kwh * in.usd_per_kwh;
}

}  // namespace

CostFamily cost_family_of(std::string_view profile) {
  const auto has_prefix = [&](std::string_view prefix) {
    return profile.size() > prefix.size() && profile.substr(0, prefix.size()) == prefix;
  };
  if (has_prefix("ib-")) return CostFamily::kInfiniband;
  // UET runs on Ethernet NICs and switches: RoCE's cost inputs (an assumption
  // until UET NIC prices are published).
  if (has_prefix("rocev2-") || has_prefix("uet-") || profile == "ethernet-lossy") return CostFamily::kRoce;
  if (has_prefix("iwarp-")) return CostFamily::kIwarp;
  if (profile == "ideal") return CostFamily::kIdeal;
  throw std::invalid_argument("no cost family for profile '" + std::string(profile) +
                              "': expected ib-*, rocev2-*, uet-*, ethernet-lossy, iwarp-* or ideal");
}

std::string_view cost_family_name(CostFamily family) {
  switch (family) {
    case CostFamily::kInfiniband:
      return "infiniband";
    case CostFamily::kRoce:
      return "roce";
    case CostFamily::kIwarp:
      return "iwarp";
    case CostFamily::kIdeal:
      return "ideal";
  }
  return "ideal";
}

std::vector<CostInputInfo> cost_input_info(CostFamily family) {
  if (family == CostFamily::kIdeal) return {};
  std::vector<CostInputInfo> out = {
      {"years", kDefaultYears, "years",
       "assumption: five-year ownership period, a common depreciation life for network hardware", 3, 7}};
  for (CostInputInfo& i : family_info(family)) out.push_back(std::move(i));
  for (CostInputInfo& i : shared_info()) out.push_back(std::move(i));
  return out;
}

CostInputInfo cable_link_info(std::string_view cable) {
  for (const CablePrice& p : kCablePrices)
    if (p.cable == cable)
      return {"link_" + std::string(cable),
              p.usd,
              "USD",
              p.source.empty()
                  ? fmt::format("{}: the in-hall 400G optics of a 1,024-GPU NDR fat-tree, 586-781 "
                                "USD per link with both ends, midpoint 684 (as host_link)",
                                kYobitelNdr)
                  : std::string(p.source),
              p.low,
              p.high};
  throw std::logic_error("tco: no link price for cable class " + std::string(cable));
}

double CostInputs::cable_link(std::string_view cable) const {
  for (const auto& [c, usd] : cable_link_usd)
    if (c == cable) return usd;
  throw std::logic_error("tco: no link price for cable class " + std::string(cable));
}

CostInputs default_cost_inputs(CostFamily family, const std::vector<std::string>& cables) {
  CostInputs in;
  in.family = family;
  for (const std::string& c : cables) in.cable_link_usd.emplace_back(c, cable_link_info(c).value);
  for (const CostInputInfo& i : cost_input_info(family)) {
    if (i.key == "years") {
      in.years = static_cast<int>(i.value);
    } else {
      in.*member_for(i.key) = i.value;
    }
  }
  return in;
}

CostResult compute_tco(const BillOfMaterials& bom, const CostInputs& in) {
  CostResult r;
  if (in.family == CostFamily::kIdeal) {
    r.applicable = false;
    return r;
  }
  const auto add = [&](std::string item, std::string category, double usd, std::string formula,
                       std::vector<std::string> inputs) {
    r.lines.push_back({std::move(item), std::move(category), usd, std::move(formula), std::move(inputs)});
  };
  const std::string years = num(in.years);

  add("NICs", "capex", static_cast<double>(bom.nics) * in.nic_usd,
      fmt::format("{} NICs x {} USD", bom.nics, num(in.nic_usd)), {"bom.nics", "nic"});
  add("Switches", "capex", static_cast<double>(bom.switch_ports_used) * in.switch_port_usd,
      fmt::format("{} ports x {} USD", bom.switch_ports_used, num(in.switch_port_usd)),
      {"bom.switch_ports_used", "switch_port"});
  add("Host links", "capex", static_cast<double>(bom.host_links) * in.host_link_usd,
      fmt::format("{} links x {} USD", bom.host_links, num(in.host_link_usd)),
      {"bom.host_links", "host_link"});
  add("Fabric links", "capex", static_cast<double>(bom.fabric_links) * in.fabric_link_usd,
      fmt::format("{} links x {} USD", bom.fabric_links, num(in.fabric_link_usd)),
      {"bom.fabric_links", "fabric_link"});
  for (const auto& [cable, n] : bom.cable_links)
    add("Links (" + cable + ")", "capex", static_cast<double>(n) * in.cable_link(cable),
        fmt::format("{} {} links x {} USD", n, cable, num(in.cable_link(cable))),
        {"bom.cable_links." + cable, "link_" + cable});

  const std::string energy_tail = fmt::format("x PUE {} x {} h x {} y / 1000 x {} USD/kWh", num(in.pue),
                                              num(kHoursPerYear), years, num(in.usd_per_kwh));
  add("NIC power", "opex", energy_usd(static_cast<double>(bom.nics) * in.nic_w, in),
      fmt::format("{} NICs x {} W {}", bom.nics, num(in.nic_w), energy_tail),
      {"bom.nics", "nic_w", "pue", "usd_per_kwh", "years"});
  add("Switch power", "opex", energy_usd(static_cast<double>(bom.switch_ports_used) * in.switch_port_w, in),
      fmt::format("{} ports x {} W {}", bom.switch_ports_used, num(in.switch_port_w), energy_tail),
      {"bom.switch_ports_used", "switch_port_w", "pue", "usd_per_kwh", "years"});
  add("Licences", "opex", static_cast<double>(bom.switches) * in.licence_usd_per_switch_year * in.years,
      fmt::format("{} switches x {} USD/y x {} y", bom.switches, num(in.licence_usd_per_switch_year), years),
      {"bom.switches", "licence_per_switch_year", "years"});
  // Divided by 100 last so whole-number inputs give exact results.
  add("Staff", "opex",
      static_cast<double>(bom.switches) * in.staff_fte_per_100_switches * in.staff_salary_usd *
          in.staff_overhead * in.years / 100,
      fmt::format("{} switches x {} FTE/100 switches x {} USD/y x {} overhead x {} y", bom.switches,
                  num(in.staff_fte_per_100_switches), num(in.staff_salary_usd), num(in.staff_overhead),
                  years),
      {"bom.switches", "staff_fte_per_100_switches", "staff_salary", "staff_overhead", "years"});

  for (const CostLine& l : r.lines) (l.category == "capex" ? r.capex : r.opex) += l.usd;
  r.total = r.capex + r.opex;
  return r;
}

double usd_per(double usd, double delivered) {
  if (!(delivered > 0)) throw std::invalid_argument("usd_per: delivered must be > 0, got " + num(delivered));
  return usd / delivered;
}

double usd_per_hour(const CostResult& r, int years) {
  if (!r.applicable) throw std::invalid_argument("usd_per_hour: no cost for a network without a price (n/a)");
  return usd_per(r.total, kHoursPerYear * years);
}

double usd_per_iteration(const CostResult& r, int years, double iteration_seconds) {
  return usd_per_hour(r, years) * iteration_seconds / 3600;
}

CostInputs load_cost_inputs(const CfgNode& cost_section, CostFamily family,
                            const std::vector<std::string>& cables) {
  const int years = static_cast<int>(cost_section.integer("years", kDefaultYears, 1, kMaxYears));
  CostInputs chosen = default_cost_inputs(family, cables);
  chosen.years = years;
  for (CostFamily f : kPricedFamilies) {
    CostInputs in = default_cost_inputs(f, cables);
    in.years = years;
    if (const std::optional<CfgNode> sec = cost_section.opt_child(cost_family_name(f))) {
      for (const InputField& field : input_fields()) {
        in.*field.member = sec->real(field.key, in.*field.member, field.min, field.max);
      }
      for (auto& [cable, usd] : in.cable_link_usd) usd = sec->real("link_" + cable, usd, 0, kMaxUsd);
      for (const CablePrice& p : kCablePrices) {
        const std::string key = "link_" + std::string(p.cable);
        if (sec->has(key) &&
            std::none_of(cables.begin(), cables.end(), [&](const std::string& c) { return c == p.cable; }))
          throw sec->error(key,
                           fmt::format("has no effect: the cluster names no {} links (cluster.host_cable, "
                                       "cluster.fabric_cable or a distance condition's cable)",
                                       p.cable));
      }
      sec->finish();
    }
    if (f == family) chosen = in;
  }
  cost_section.finish();
  return chosen;
}

nlohmann::ordered_json cost_inputs_json(const CostInputs& in) {
  nlohmann::ordered_json j;
  j["family"] = cost_family_name(in.family);
  if (in.family == CostFamily::kIdeal) return j;
  j["years"] = in.years;
  for (const InputField& f : input_fields()) j[std::string(f.key)] = in.*f.member;
  for (const auto& [cable, usd] : in.cable_link_usd) j["link_" + cable] = usd;
  return j;
}

nlohmann::ordered_json bill_of_materials_json(const BillOfMaterials& bom) {
  nlohmann::ordered_json j = {{"nics", bom.nics},
                              {"switches", bom.switches},
                              {"switch_ports_used", bom.switch_ports_used},
                              {"host_links", bom.host_links},
                              {"fabric_links", bom.fabric_links},
                              {"link_gbps", bom.link_gbps}};
  // Only when the topology names classes: earlier results keep their bytes.
  if (!bom.cable_links.empty()) {
    nlohmann::ordered_json by = nlohmann::ordered_json::object();
    for (const auto& [cable, n] : bom.cable_links) by[cable] = n;
    j["cable_links"] = std::move(by);
  }
  return j;
}

nlohmann::ordered_json cost_result_json(const CostResult& r) {
  nlohmann::ordered_json j;
  if (!r.applicable) {
    j["capex"] = "n/a";
    j["opex"] = "n/a";
    j["total"] = "n/a";
    return j;
  }
  nlohmann::ordered_json lines = nlohmann::ordered_json::array();
  for (const CostLine& l : r.lines) {
    lines.push_back({{"item", l.item},
                     {"category", l.category},
                     {"usd", l.usd},
                     {"formula", l.formula},
                     {"inputs", l.inputs}});
  }
  j["lines"] = std::move(lines);
  j["capex"] = r.capex;
  j["opex"] = r.opex;
  j["total"] = r.total;
  return j;
}

}  // namespace rdmasim
